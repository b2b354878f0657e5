// The race page's times are the race's clock (the server writes them, and
// they read without this script). When the visitor's zone shows another
// clock, each time[data-local] gains the visitor's own; an opening
// (data-countdown) gains a countdown to it.
const here = Intl.DateTimeFormat().resolvedOptions().timeZone;

// clock is instant t on zone's wall clock: "Fri 3 Jan, 03:00".
const clock = (t, zone) => {
  const p = {};
  for (const { type, value } of new Intl.DateTimeFormat("en-US", {
    timeZone: zone, weekday: "short", day: "numeric", month: "short",
    hour: "2-digit", minute: "2-digit", hourCycle: "h23",
  }).formatToParts(t)) p[type] = value;
  return `${p.weekday} ${p.day} ${p.month}, ${p.hour}:${p.minute}`;
};

// left is a duration in words, to the second: "2 days 3 h 05 min 09 s",
// "12 min 09 s".
const left = (ms) => {
  const s = Math.ceil(ms / 1000), d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24,
    m = Math.floor(s / 60) % 60, pad = (n) => String(n).padStart(2, "0"), rest = `${pad(m)} min ${pad(s % 60)} s`;
  if (d > 0) return `${d} ${d === 1 ? "day" : "days"} ${h} h ${rest}`;
  if (h > 0) return `${h} h ${rest}`;
  return rest;
};

const countdowns = [];
for (const el of document.querySelectorAll("time[data-local]")) {
  const t = new Date(el.dateTime), zone = el.dataset.local;
  if (Number.isNaN(t.getTime())) continue;
  if (clock(t, here) !== clock(t, zone)) {
    const mine = document.createElement("span");
    mine.className = "local-time";
    mine.textContent = ` (${clock(t, here)} your time)`;
    el.after(mine);
  }
  if (el.hasAttribute("data-countdown")) {
    const c = document.createElement("span");
    c.className = "countdown";
    c.setAttribute("role", "timer");
    (el.closest("section") || el.parentElement).append(c);
    countdowns.push([t, c]);
  }
}
const tick = () => {
  const now = Date.now();
  for (const [t, c] of countdowns) {
    c.textContent = t - now > 0 ? `Opens in ${left(t - now)}` : "Open now: reload the page to register.";
  }
};
if (countdowns.length) {
  tick();
  setInterval(tick, 1000);
}
