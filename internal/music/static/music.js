// music: the live unread count in the nav (Server-Sent Events), the
// people search's type-ahead, a share link's Copy button. Every page
// works without this file.
const app = document.querySelector(".music-app");

// The unread badge follows my notifications as they arrive.
// The stream is closed when the page is left (pagehide) and opened again
// if it comes back from the back/forward cache: a page left behind must
// not keep its connection, or after a few pages the browser's six
// connections to the site are all held by streams and the next page waits.
if (app && app.dataset.me && window.EventSource) {
  const badge = document.getElementById("unseen");
  let source = null;
  const open = () => {
    source = new EventSource("/music/stream");
    source.addEventListener("notify", (e) => {
      const n = JSON.parse(e.data).unread;
      if (!badge) return;
      badge.textContent = String(n);
      badge.hidden = n === 0;
    });
  };
  open();
  window.addEventListener("pagehide", () => { if (source) source.close(); source = null; });
  window.addEventListener("pageshow", (e) => { if (e.persisted && !source) open(); });
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

// A share link: its field selects itself when focused, and its Copy
// button (shown only where the clipboard can be written) copies it.
document.addEventListener("focusin", (e) => {
  if (e.target.matches("input[data-select]")) e.target.select();
});
for (const b of document.querySelectorAll("button[data-copy]")) {
  const field = document.getElementById(b.dataset.copy);
  if (!field || !navigator.clipboard) continue;
  b.hidden = false;
  b.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(field.value);
      b.textContent = "Copied";
    } catch {
      field.select();
    }
  });
}

// A player starts as a button; pressing it puts the site's player in its
// place (the iframe's address is the server's, on an allowed origin).
document.addEventListener("click", (e) => {
  const play = e.target.closest(".player a.play");
  if (!play || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
  const box = play.parentElement;
  e.preventDefault();
  const frame = document.createElement("iframe");
  frame.src = box.dataset.src + (box.dataset.src.includes("?") ? "&" : "?") + "autoplay=1";
  frame.title = box.dataset.title;
  frame.allow = "autoplay; encrypted-media; clipboard-write; fullscreen; picture-in-picture";
  frame.referrerPolicy = "strict-origin-when-cross-origin";
  frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox allow-presentation");
  box.replaceChildren(frame);
  box.classList.add("playing");
});
