// meet: the links a browser keeps. A participant's private page remembers
// their private link in localStorage; the poll's public page (one cached page
// for everyone) reads it back and shows "You answered as X: edit". Copy
// buttons put full links on the clipboard. Without JavaScript the pages work
// as before: the links are shown in full and can be selected by hand.
const KEY = "meet.participations";
const OWN = /^\/meet\/polls\/([A-Za-z0-9_-]{22})\/p\/([0-9]+)\/[A-Za-z0-9_-]+$/;

function load() {
  try {
    const all = JSON.parse(localStorage.getItem(KEY) || "{}");
    return all && typeof all === "object" && !Array.isArray(all) ? all : {};
  } catch (e) {
    return {};
  }
}

function store(all) {
  try { localStorage.setItem(KEY, JSON.stringify(all)); } catch (e) { /* private mode or full: nothing kept */ }
}

// entries returns the remembered participations in poll id, checked: only
// private links of that poll, so stored data can never make another link.
function entries(all, poll) {
  const list = Array.isArray(all[poll]) ? all[poll] : [];
  return list.filter((e) => e && typeof e.name === "string" && typeof e.url === "string" &&
    OWN.test(e.url) && OWN.exec(e.url)[1] === poll);
}

// remember keeps the participation shown on a private page, and forgets it
// when the participant leaves the poll.
function remember() {
  const el = document.querySelector("[data-remember]");
  if (!el) return;
  const { poll, pid, name, url } = el.dataset;
  if (!OWN.test(url)) return;
  const all = load();
  const list = entries(all, poll).filter((e) => e.pid !== pid);
  list.unshift({ pid, name, url, at: Date.now() });
  all[poll] = list.slice(0, 10);
  store(all);
  const leave = document.querySelector("form[data-leave]");
  if (!leave) return;
  // Listening on the document runs after the form's own confirm(): a
  // cancelled leave is defaultPrevented and forgets nothing.
  document.addEventListener("submit", (e) => {
    if (e.target !== leave || e.defaultPrevented) return;
    const now = load();
    now[poll] = entries(now, poll).filter((x) => x.pid !== pid);
    if (!now[poll].length) delete now[poll];
    store(now);
  });
}

// showMine fills "You answered as X: edit" on the poll's public page.
function showMine() {
  const box = document.getElementById("my-answers");
  const page = document.querySelector("article.poll[data-poll]");
  if (!box || !page) return;
  const all = load();
  let list = entries(all, page.dataset.poll);
  // The heat map names everyone in the poll: a participation whose name is
  // no longer there was removed (by the organizer, or from another browser).
  const heat = document.querySelector("[data-heat]");
  if (heat && list.length) {
    try {
      const names = new Set(JSON.parse(heat.dataset.heat).names.map((n) => n.toLowerCase()));
      const kept = list.filter((e) => names.has(e.name.toLowerCase()));
      if (kept.length !== list.length) {
        if (kept.length) all[page.dataset.poll] = kept; else delete all[page.dataset.poll];
        store(all);
        list = kept;
      }
    } catch (e) { /* no names to check against */ }
  }
  if (!list.length) return;
  box.replaceChildren(...list.map((e) => {
    const li = document.createElement("li");
    const who = document.createElement("strong");
    who.textContent = e.name;
    const a = document.createElement("a");
    a.href = e.url;
    a.textContent = "edit";
    a.className = "edit-mine";
    li.append("You answered as ", who, ": ", a);
    return li;
  }));
  box.hidden = false;
}

// copyButtons wires every Copy button to the field it names.
function copyButtons() {
  for (const input of document.querySelectorAll("input.copy-url")) {
    input.addEventListener("focus", () => input.select());
  }
  for (const btn of document.querySelectorAll("button[data-copy]")) {
    const input = document.getElementById(btn.dataset.copy);
    if (!input) continue;
    btn.hidden = false;
    let timer = null;
    const done = (text, ok) => {
      btn.textContent = text;
      btn.classList.toggle("copied", ok);
      clearTimeout(timer);
      timer = setTimeout(() => { btn.textContent = "Copy"; btn.classList.remove("copied"); }, 2500);
    };
    btn.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(input.value);
        done("Copied", true);
      } catch (e) {
        // No clipboard (an insecure origin, a refusal): select the link so
        // that Ctrl+C or the phone's menu copies it.
        input.focus();
        input.select();
        let copied = false;
        try { copied = document.execCommand("copy"); } catch (e2) { /* unsupported */ }
        done(copied ? "Copied" : "Press Ctrl+C", copied);
      }
    });
  }
}

remember();
showMine();
copyButtons();
