// roar in the browser: local times, likes and reposts without a reload, the
// compose box's counter, the live timeline (Server-Sent Events, falling
// back to polling with ?since= when the stream drops), the live unread badge,
// and the reply link's focus on the reply box. Every form still works
// without this script.
const app = document.querySelector(".roar-app");
const me = app ? app.dataset.me : "";
const timeline = document.getElementById("timeline");
// A thread page: its timeline is the replies to this roar, oldest first.
const thread = app ? app.dataset.thread || "" : "";

function ago(d) {
  const s = (Date.now() - d.getTime()) / 1000;
  if (s < 45) return "now";
  if (s < 3600) return Math.round(s / 60) + "m";
  if (s < 86400) return Math.round(s / 3600) + "h";
  return d.toLocaleDateString(undefined, { month: "short", day: "numeric" });
}

function dress(root) {
  for (const t of root.querySelectorAll("time[datetime]")) {
    const d = new Date(t.dateTime);
    if (!isNaN(d)) { t.textContent = ago(d); t.title = d.toLocaleString(); }
  }
  if (me) {
    for (const f of root.querySelectorAll("form.remove[data-owner]")) {
      if (f.dataset.owner === me) f.hidden = false;
    }
  }
}

// shown is count n as element el shows it: a reply count less the replies
// (data-hidden, counted when the page was made) of authors the viewer does
// not see.
function shown(el, n) {
  return Math.max(0, n - (Number(el.dataset.hidden) || 0));
}

function setCount(target, cls, n) {
  for (const el of document.querySelectorAll(`[data-target="${target}"] .${cls}`)) el.textContent = shown(el, n);
}

// setCounts shows roar r's counts (an API Roar) wherever it is on the page:
// its like, repost and reply buttons, and a thread's "N replies" heading.
function setCounts(r) {
  if (!r) return;
  setCount(r.id, "like-count", r.likes);
  setCount(r.id, "repost-count", r.reposts);
  setCount(r.id, "reply-count", r.replies);
  const h = document.getElementById("replies-h");
  if (h && h.dataset.of === String(r.id)) {
    const n = shown(h, r.replies);
    h.textContent = n === 1 ? "1 reply" : n + " replies";
  }
}

async function send(form) {
  const res = await fetch(form.action, {
    method: "POST",
    headers: { Accept: "application/json" },
    body: new URLSearchParams(new FormData(form)),
  });
  if (res.status === 401) { location.href = "/account/login?next=" + encodeURIComponent(location.pathname); return null; }
  const body = res.status === 204 ? {} : await res.json().catch(() => ({}));
  return { res, body };
}

document.addEventListener("submit", async (ev) => {
  const form = ev.target;
  if (form.matches("form.remove")) {
    if (!confirm(form.dataset.confirm || "Sure?")) ev.preventDefault();
    return;
  }
  if (form.matches("form.toggle")) {
    ev.preventDefault();
    const r = await send(form);
    if (!r || !r.res.ok) { if (r) alert(r.body.detail || "That did not work."); return; }
    const on = form.elements.on.value === "true";
    const verb = form.dataset.verb;
    const target = form.closest("[data-target]").dataset.target;
    for (const f of document.querySelectorAll(`[data-target="${target}"] form.toggle[data-verb="${verb}"]`)) {
      f.elements.on.value = on ? "false" : "true";
      const b = f.querySelector("button");
      b.classList.toggle("on", on);
      b.setAttribute("aria-pressed", on ? "true" : "false");
    }
    if (verb === "like") setCount(target, "like-count", r.body.likes);
    if (verb === "repost") setCount(target, "repost-count", r.body.reposts);
    return;
  }
  if (form.matches("form.compose")) {
    ev.preventDefault();
    const btn = form.querySelector("button[type=submit]");
    btn.disabled = true;
    try {
      const r = await send(form);
      if (!r) return;
      let err = form.querySelector(".field-error");
      if (!r.res.ok) {
        if (!err) { err = document.createElement("p"); err.className = "field-error"; err.id = "body-error"; err.setAttribute("role", "alert"); form.querySelector("textarea").after(err); }
        err.textContent = (r.body.fields && r.body.fields.body) || r.body.detail || "That did not work.";
        form.querySelector("textarea").setAttribute("aria-invalid", "true");
        return;
      }
      if (err) err.remove();
      const ta = form.querySelector("textarea");
      ta.value = ""; ta.setAttribute("aria-invalid", "false"); ta.dispatchEvent(new Event("input"));
      if (form.elements.reply_to) { insert(r.body.html, "append"); setCounts(r.body.parent); } else { insert(r.body.html, "prepend"); }
    } finally { btn.disabled = false; }
  }
});

// The compose box counts code points, as the server does.
for (const ta of document.querySelectorAll("form.compose textarea")) {
  const out = document.getElementById("body-left");
  const update = () => {
    const left = 280 - [...ta.value].length;
    out.textContent = left + " left";
    out.classList.toggle("over", left < 0);
  };
  ta.addEventListener("input", update);
  update();
}

// insert puts a roar's article on the page: "append", "prepend", or "live"
// for one that arrived by the stream or a poll: first on a timeline (newest
// first), last on a thread (oldest first) unless earlier replies are still
// to be shown (its "More replies" link).
function insert(html, where) {
  if (!timeline || !html) return;
  if (where === "live") {
    if (thread && document.querySelector('.pager a[rel="next"]')) return;
    where = thread ? "append" : "prepend";
  }
  const tpl = document.createElement("template");
  tpl.innerHTML = html;
  const art = tpl.content.firstElementChild;
  if (!art || document.getElementById(art.id)) return;
  art.classList.add("fresh");
  dress(tpl.content);
  if (where === "append") timeline.append(art); else timeline.prepend(art);
  const empty = document.querySelector(".empty");
  if (empty) empty.remove();
}

function newest() {
  let max = 0;
  if (!timeline) return max;
  for (const a of timeline.querySelectorAll(":scope > article[data-id]")) max = Math.max(max, +a.dataset.id);
  return max;
}

// The unread badge in the navigation.
function setUnread(n) {
  const b = document.getElementById("unseen");
  if (b && typeof n === "number") { b.textContent = n; b.hidden = n <= 0; }
}

// The notifications page marks what it shows as seen by a POST (a GET never
// changes anything), once the page is actually looked at; without this
// script its "Mark all as read" button does the same.
const markSeen = document.getElementById("mark-seen");
if (markSeen) {
  let done = false;
  const mark = async () => {
    if (done || document.visibilityState !== "visible") return;
    done = true;
    document.removeEventListener("visibilitychange", mark);
    const r = await send(markSeen);
    if (r && r.res.ok) { setUnread(r.body.unread); markSeen.hidden = true; }
  };
  document.addEventListener("visibilitychange", mark);
  mark();
}

// The reply link (…#compose) puts the cursor in the reply box: on arrival
// from another page, and at once when the box is on this page. Without this
// script the anchor still scrolls to the box.
function replyBox() { return document.querySelector("#compose textarea"); }
function focusReply(ta) {
  ta.focus();
  ta.setSelectionRange(ta.value.length, ta.value.length);
}
document.addEventListener("click", (ev) => {
  const a = ev.target.closest && ev.target.closest('a[href$="#compose"]');
  const ta = replyBox();
  if (!a || !ta || new URL(a.href, location.href).pathname !== location.pathname) return;
  ev.preventDefault();
  if (location.hash !== "#compose") history.pushState(null, "", "#compose");
  focusReply(ta);
});
function focusOnHash() { const ta = replyBox(); if (location.hash === "#compose" && ta) focusReply(ta); }
window.addEventListener("hashchange", focusOnHash);
// The browser's own scroll to the fragment, at load, resets the focus: after it.
if (document.readyState === "complete") focusOnHash();
else window.addEventListener("load", () => requestAnimationFrame(focusOnHash));

// The live timeline, and the badge: a page without a timeline listens to
// feed=none, which carries only the viewer's "notify" events.
const feed = app ? (app.dataset.live || (me ? "none" : "")) : "";
let source = null, pollTimer = null, failures = 0;

function connect() {
  source = new EventSource(`${app.dataset.stream || "/roar/stream"}?feed=${feed}${threadQuery()}&after=${newest()}`);
  source.addEventListener("open", () => { failures = 0; stopPolling(); });
  source.addEventListener("notify", (e) => {
    const n = JSON.parse(e.data).unread;
    setUnread(n);
    // On the notifications page, offer the new ones.
    const more = document.getElementById("notes-new");
    if (more && n > 0) more.hidden = false;
  });
  source.addEventListener("roar", (e) => { const d = JSON.parse(e.data); insert(d.html, "live"); });
  source.addEventListener("like", (e) => { const d = JSON.parse(e.data); setCount(d.id, "like-count", d.likes); });
  source.addEventListener("counts", (e) => setCounts(JSON.parse(e.data).roar));
  source.addEventListener("delete", (e) => {
    const d = JSON.parse(e.data);
    for (const id of d.gone || [d.id]) {
      const el = document.getElementById("r-" + id);
      if (el) el.remove();
    }
  });
  source.addEventListener("error", () => {
    // The browser retries by itself (sending Last-Event-ID); if it keeps
    // failing, or gives up, poll instead and try the stream again later.
    failures++;
    if (source.readyState === EventSource.CLOSED || failures >= 3) {
      source.close();
      startPolling();
      setTimeout(connect, 30000);
    }
  });
}

async function poll() {
  if (!timeline || feed === "none") return;
  try {
    const res = await fetch(`${app.dataset.poll}?feed=${feed}${threadQuery()}&since=${newest()}`, { headers: { Accept: "text/html" } });
    if (!res.ok) return;
    const tpl = document.createElement("template");
    tpl.innerHTML = await res.text();
    for (const art of [...tpl.content.children]) insert(art.outerHTML, "live");
  } catch (_) { /* offline: try again on the next tick */ }
}

// A thread page's stream and polls keep to its replies.
function threadQuery() { return thread ? "&thread=" + thread : ""; }

function startPolling() { if (!pollTimer) { poll(); pollTimer = setInterval(poll, 5000); } }
function stopPolling() { if (pollTimer) { clearInterval(pollTimer); pollTimer = null; } }

dress(document);
if (feed && (timeline || feed === "none") && window.EventSource) {
  connect();
  // A page left behind closes its stream (else after a few pages the
  // browser's six connections to the site are all streams and the next
  // page waits); back from the back/forward cache, it opens it again.
  window.addEventListener("pagehide", () => { if (source) source.close(); source = null; stopPolling(); });
  window.addEventListener("pageshow", (e) => { if (e.persisted && !source) connect(); });
}
setInterval(() => dress(document), 60000);
