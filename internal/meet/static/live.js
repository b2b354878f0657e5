// live: the poll page follows the poll without a reload. The server sends an
// event on /meet/polls/ID/stream after each change (someone joined, painted,
// left or commented; the organizer edited or closed the poll); the page is
// then fetched again (a shared cached page, revalidated by its ETag) and what
// differs is swapped in place: best times, the heat map's colours and who is
// free, the participants, the comments. What the viewer is using is kept:
// forms (a name being typed), the heat map's table and its selected cell,
// what other scripts wrote.
const page = document.querySelector("article.poll[data-poll]");

// wait is how long events are gathered before the page is fetched: a
// painting burst makes one fetch, not one per save; the random part spreads
// the fetches of many viewers.
const wait = () => 400 + Math.random() * 400;

// Elements kept across updates: they hold the viewer's input, listeners, or
// what another script wrote for this browser (participations.js's "You
// answered as"). OWNED ones are never touched; the heat map's table and
// #who are updated in place.
const OWNED = "form, #my-answers";
const KEEP = OWNED + ", table.heat, #who";

const sig = (n) => (n.nodeType === 1 ? n.tagName + "#" + n.id + "." + n.getAttribute("class") : "#" + n.nodeType);

function syncAttributes(old, fresh) {
  for (const { name } of Array.from(old.attributes)) if (!fresh.hasAttribute(name)) old.removeAttribute(name);
  for (const { name, value } of Array.from(fresh.attributes)) if (old.getAttribute(name) !== value) old.setAttribute(name, value);
}

// patchHeat recolours the heat map's cells in place; false if the grid itself
// changed (other days or hours).
function patchHeat(old, fresh) {
  const a = old.querySelectorAll("td.cell"), b = fresh.querySelectorAll("td.cell");
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i].dataset.s !== b[i].dataset.s) return false;
  for (let i = 0; i < a.length; i++) {
    const sel = a[i].classList.contains("sel");
    a[i].className = b[i].className;
    if (sel) a[i].classList.add("sel");
    a[i].setAttribute("aria-label", b[i].getAttribute("aria-label"));
  }
  return true;
}

// patch makes old show what fresh (from the fetched page) shows; false if
// that needs a reload.
function patch(old, fresh) {
  if (old.isEqualNode(fresh)) return true;
  if (old.nodeType !== 1 || sig(old) !== sig(fresh)) {
    old.replaceWith(document.importNode(fresh, true));
    return true;
  }
  if (old.matches("table.heat")) return patchHeat(old, fresh);
  if (old.matches("#who")) {
    old.dataset.heat = fresh.dataset.heat; // its content is the viewer's selection
    return true;
  }
  if (old.matches(OWNED)) return true;
  if (!old.querySelector(KEEP)) {
    old.replaceWith(document.importNode(fresh, true));
    return true;
  }
  syncAttributes(old, fresh);
  // Children are matched in order by tag, id and class: a section that
  // appears (the decision, once closed) is inserted, one that goes removed.
  const a = Array.from(old.childNodes);
  let i = 0;
  for (const f of Array.from(fresh.childNodes)) {
    let k = i;
    while (k < a.length && sig(a[k]) !== sig(f)) k++;
    if (k === a.length) {
      old.insertBefore(document.importNode(f, true), a[i] || null);
      continue;
    }
    for (; i < k; i++) a[i].remove();
    if (!patch(a[i], f)) return false;
    i++;
  }
  for (; i < a.length; i++) a[i].remove();
  return true;
}

// The poll's page. The page may also be the answer to a refused join
// (POST .../participants), which is never fetched or reloaded as such.
const base = page && "/meet/polls/" + page.dataset.poll;
const onPoll = page && location.pathname === base;

function reload() {
  if (onPoll) location.reload();
  else location.assign(base);
}

async function refresh() {
  const res = await fetch(onPoll ? base + location.search : base, { cache: "no-cache", credentials: "same-origin" });
  if (res.status === 404) return reload(); // the poll was deleted
  if (!res.ok) return;
  const doc = new DOMParser().parseFromString(await res.text(), "text/html");
  const fresh = doc.querySelector("article.poll[data-poll]");
  if (fresh && !patch(page, fresh)) reload();
}

if (page && window.EventSource) {
  let timer = null, running = false, again = false;
  const run = async () => {
    timer = null;
    if (running) { again = true; return; }
    running = true;
    try { await refresh(); } catch (e) { /* offline: the next event or reconnect tries again */ }
    running = false;
    if (again) { again = false; schedule(); }
  };
  const schedule = () => { if (!timer) timer = setTimeout(run, wait()); };
  // Once the stream is open, the page is fetched once (a revalidation, most
  // often answered 304): a change made between the page's rendering and the
  // stream's opening is not missed. After a drop, likewise.
  let dropped = true;
  let src = null;
  const connect = () => {
    const s = new EventSource(base + "/stream");
    src = s;
    s.addEventListener("answers", schedule);
    s.addEventListener("poll", schedule);
    s.addEventListener("open", () => { if (dropped) { dropped = false; schedule(); } });
    s.addEventListener("error", () => {
      dropped = true;
      // The browser reconnects by itself unless it was refused (the server
      // holds too many streams): then try again in a while.
      if (s.readyState === EventSource.CLOSED && src === s) setTimeout(connect, 20000 + Math.random() * 20000);
    });
  };
  connect();
  // A page left behind closes its stream (else a few of them hold all six
  // of the browser's connections to the site); back from the
  // back/forward cache, it opens it again.
  window.addEventListener("pagehide", () => { if (src) src.close(); src = null; });
  window.addEventListener("pageshow", (e) => { if (e.persisted && !src) { dropped = true; connect(); } });
}
