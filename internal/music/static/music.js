// music: the live unread count in the nav (Server-Sent Events), and the
// people search's type-ahead. Every page works without this file.
const app = document.querySelector(".music-app");

// The unread badge follows my notifications as they arrive.
if (app && app.dataset.me && window.EventSource) {
  const badge = document.getElementById("unseen");
  const source = new EventSource("/music/stream");
  source.addEventListener("notify", (e) => {
    const n = JSON.parse(e.data).unread;
    if (!badge) return;
    badge.textContent = String(n);
    badge.hidden = n === 0;
  });
}

// Type-ahead: the list of people under the search box follows what is typed.
const box = document.querySelector("input[data-suggest]");
const list = document.getElementById("people");
if (box && list) {
  let timer = 0;
  let asked = "";
  box.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const q = box.value.trim();
      if (q === asked) return;
      asked = q;
      const res = await fetch(`${box.dataset.suggest}?q=${encodeURIComponent(q)}`, { headers: { Accept: "text/html" } });
      if (res.ok && asked === q) list.innerHTML = await res.text();
    }, 150);
  });
}
