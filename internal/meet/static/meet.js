// meet: progressive enhancement for poll pages. Everything works without it;
// with it, the browser's time zone is detected, the heat map tells who is
// free, and the availability grid can be painted with mouse, touch or keys.
const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

function detectZone() {
  let zone = "";
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { /* old browser */ }
  if (!zone) return;
  const note = $("#tz-detected");
  if (note) note.textContent = "Your browser's zone: " + zone;
  const hasCookie = document.cookie.split("; ").some((c) => c.startsWith("meet_tz="));
  for (const sel of $$("select[data-detect-zone]")) {
    if (sel.value !== "UTC" || hasCookie) continue;
    if (!Array.from(sel.options).some((o) => o.value === zone)) sel.add(new Option(zone, zone), 0);
    sel.value = zone;
  }
  if (hasCookie) return;
  // The name as is: the server reads the cookie raw, and every character of
  // an IANA name ("America/New_York", "Etc/GMT+5") may stand in a cookie.
  if (!/^[A-Za-z0-9_+\/-]+$/.test(zone)) return;
  document.cookie = "meet_tz=" + zone + "; path=/meet/; max-age=31536000; samesite=lax";
  const page = $("[data-zone]");
  if (page && page.dataset.zone !== zone && !location.search.includes("tz=")) location.reload();
}

function wireForms() {
  for (const sel of $$("select[data-autosubmit]")) sel.addEventListener("change", () => sel.form.submit());
  for (const f of $$("form[data-confirm]")) {
    f.addEventListener("submit", (e) => { if (!confirm(f.dataset.confirm)) e.preventDefault(); });
  }
  // Picking a date or time in the close form means "another start time".
  const other = $("#close-other");
  for (const el of $$("#close-date, #close-time")) el.addEventListener("input", () => { if (other) other.checked = true; });
}

// Arrow keys move between the cells of a grid (a roving tabindex).
function keyNav(table, onKey) {
  const rows = $$("tbody tr", table).map((tr) => $$("td", tr));
  const cells = $$("td.cell", table);
  if (!cells.length) return;
  cells[0].tabIndex = 0;
  table.addEventListener("keydown", (e) => {
    const td = e.target.closest("td.cell");
    if (!td) return;
    const r = rows.findIndex((row) => row.includes(td));
    const c = rows[r].indexOf(td);
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[e.key]) {
      e.preventDefault();
      let [nr, nc] = [r, c];
      for (;;) {
        nr += moves[e.key][0]; nc += moves[e.key][1];
        if (nr < 0 || nr >= rows.length || nc < 0 || nc >= rows[nr].length) return;
        const next = rows[nr][nc];
        if (next.classList.contains("cell")) {
          td.tabIndex = -1; next.tabIndex = 0; next.focus();
          return;
        }
      }
    }
    if (onKey) onKey(e, td);
  });
}

function heatMap() {
  const table = $("table.heat");
  const who = $("#who");
  if (!table || !who || !who.dataset.heat) return;
  let raw = who.dataset.heat, data = JSON.parse(raw);
  const tierNames = { 1: "preferred", 2: "fine", 3: "if need be" };
  let selected = null;
  const show = (td) => {
    if (who.dataset.heat !== raw) data = JSON.parse(raw = who.dataset.heat); // updated live (live.js)
    if (selected) selected.classList.remove("sel");
    selected = td; td.classList.add("sel");
    const avail = data.slots[+td.dataset.s] || [];
    who.replaceChildren();
    const title = document.createElement("strong");
    title.textContent = td.getAttribute("aria-label");
    who.append(title);
    if (!avail.length) return;
    const ul = document.createElement("ul");
    for (const [i, tier] of avail) {
      const li = document.createElement("li");
      li.className = "t" + tier;
      li.textContent = data.names[i] + " (" + tierNames[tier] + ")";
      ul.append(li);
    }
    who.append(ul);
  };
  table.addEventListener("pointerover", (e) => { const td = e.target.closest("td.cell"); if (td) show(td); });
  table.addEventListener("focusin", (e) => { const td = e.target.closest("td.cell"); if (td) show(td); });
  keyNav(table);
}

function readOnlyGrid() {
  for (const table of $$("table.grid[data-tiers]")) {
    if (!table.dataset.tiers) continue;
    const cells = new Map($$("td.cell", table).map((td) => [+td.dataset.s, td]));
    for (const [s, tier] of JSON.parse(table.dataset.tiers)) cells.get(s)?.classList.add("p" + tier);
  }
}

function paintGrid() {
  const table = $("table.grid.paint");
  if (!table) return;
  const state = new Map(); // slot index -> tier
  const mine = JSON.parse(table.dataset.mine || "{}");
  for (const [s, tier] of mine.slots || []) state.set(s, tier);
  const busy = new Set(mine.busy || []);
  const rows = $$("tbody tr", table).map((tr) => $$("td", tr));
  const pos = new Map(); // td -> [row, col]
  rows.forEach((row, r) => row.forEach((td, c) => pos.set(td, [r, c])));
  const cells = $$("td.cell", table);
  const paint = (td, tier) => {
    td.classList.remove("p1", "p2", "p3");
    if (tier) td.classList.add("p" + tier);
  };
  for (const td of cells) {
    paint(td, state.get(+td.dataset.s));
    if (busy.has(+td.dataset.s)) td.classList.add("busy");
  }
  let tier = 1;
  for (const b of $$(".paint-tools .tier")) {
    b.addEventListener("click", () => {
      tier = +b.dataset.tier;
      for (const o of $$(".paint-tools .tier")) { o.classList.toggle("active", o === b); o.setAttribute("aria-pressed", String(o === b)); }
    });
  }
  // Saving: every change is "Saving…" at once, and "Saved" only once the
  // server has confirmed the latest change. Saves go one at a time, in order,
  // each with the whole painting. A change still waiting when the page is
  // left (pagehide, or the tab hidden) is sent at once with a keepalive
  // fetch, which outlives the page; so is every save that fits its 64 KiB.
  // Saving: every change is "Saving…" at once, and "Saved" only once the
  // server has confirmed the latest change. Each save sends the whole
  // painting; saves go one at a time. A change still waiting when the page is
  // left (pagehide, or the tab hidden) is sent at once, with a keepalive
  // fetch that outlives the page, as is every save that fits its 64 KiB.
  const status = $("#save-state");
  let timer = null;
  let rev = 0;       // the latest change
  let sent = 0;      // the latest change sent
  let confirmed = 0; // the latest change the server has
  let inFlight = 0;
  const body = () => {
    const slots = [];
    for (const td of cells) {
      const t = state.get(+td.dataset.s);
      if (t) slots.push({ start: td.dataset.t, tier: t });
    }
    return JSON.stringify({ slots });
  };
  const post = () => {
    const r = rev, payload = body();
    sent = r;
    inFlight++;
    fetch(table.dataset.save, {
      method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: payload, credentials: "same-origin", keepalive: payload.length < 60000,
    }).then(async (res) => {
      if (!res.ok) {
        const p = await res.json().catch(() => ({}));
        throw new Error(p.detail || res.statusText);
      }
      confirmed = Math.max(confirmed, r);
    }).catch((err) => {
      if (r === rev) status.textContent = "Not saved: " + err.message; // retried with the next change
    }).finally(() => {
      inFlight--;
      if (inFlight) return;
      if (confirmed === rev) {
        status.textContent = "Saved";
        refreshList();
      } else if (sent !== rev && !timer) {
        post();
      }
    });
  };
  const flush = () => {
    clearTimeout(timer);
    timer = null;
    if (!inFlight && sent !== rev) post();
  };
  const save = () => {
    rev++;
    status.textContent = "Saving…";
    clearTimeout(timer);
    timer = setTimeout(flush, 250);
  };
  // Leaving: send what is waiting now, even while an earlier save is on its
  // way (that one left first, so the server has it first in practice).
  const leave = () => {
    clearTimeout(timer);
    timer = null;
    if (sent !== rev) post();
  };
  window.addEventListener("pagehide", leave);
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") leave(); });
  // A painting too large for a keepalive request could be cut off: ask first.
  window.addEventListener("beforeunload", (e) => {
    if (sent !== rev && body().length >= 60000) e.preventDefault();
  });
  // A drag paints the rectangle between where it started and where it is.
  let drag = null;
  const preview = (to) => {
    const [r0, c0] = pos.get(drag.from), [r1, c1] = pos.get(to);
    for (const td of cells) {
      const [r, c] = pos.get(td);
      const inside = r >= Math.min(r0, r1) && r <= Math.max(r0, r1) && c >= Math.min(c0, c1) && c <= Math.max(c0, c1);
      paint(td, inside ? drag.tier : state.get(+td.dataset.s));
    }
    drag.to = to;
  };
  table.addEventListener("pointerdown", (e) => {
    const td = e.target.closest("td.cell");
    if (!td || e.button > 0) return;
    e.preventDefault();
    const current = state.get(+td.dataset.s) || 0;
    drag = { from: td, to: td, tier: current === tier ? 0 : tier };
    preview(td);
  });
  table.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const el = document.elementFromPoint(e.clientX, e.clientY);
    const td = el && el.closest && el.closest("td.cell");
    if (td && table.contains(td) && td !== drag.to) preview(td);
  });
  const finish = () => {
    if (!drag) return;
    for (const td of cells) {
      const t = td.classList.contains("p1") ? 1 : td.classList.contains("p2") ? 2 : td.classList.contains("p3") ? 3 : 0;
      if (t) state.set(+td.dataset.s, t); else state.delete(+td.dataset.s);
    }
    drag = null;
    save();
  };
  window.addEventListener("pointerup", finish);
  window.addEventListener("pointercancel", finish);
  keyNav(table, (e, td) => {
    if (e.key !== " " && e.key !== "Enter") return;
    e.preventDefault();
    const s = +td.dataset.s;
    const t = (state.get(s) || 0) === tier ? 0 : tier;
    if (t) state.set(s, t); else state.delete(s);
    paint(td, t);
    save();
  });
}

// refreshList reloads the list of timeframes after the grid was saved.
async function refreshList() {
  const res = await fetch(location.pathname, { credentials: "same-origin" });
  if (!res.ok) return;
  const doc = new DOMParser().parseFromString(await res.text(), "text/html");
  const fresh = $("#timeframes", doc), old = $("#timeframes");
  if (fresh && old) old.replaceWith(fresh);
}

detectZone();
wireForms();
heatMap();
readOnlyGrid();
paintGrid();
