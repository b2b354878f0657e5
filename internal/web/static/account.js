// The account area of the top bar on pages cached for everyone: the server
// renders the visitor's links, and this fills in the username from the
// tutti_user cookie (set at login, cleared at logout). Without JavaScript the
// Sign in link stays, which still works.
const area = document.getElementById("account");

function cookie(name) {
  for (const part of document.cookie.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return "";
}

function here() {
  const p = location.pathname + location.search;
  return p.startsWith("/account/") ? "" : p;
}

if (area && area.dataset.state === "visitor") {
  const user = cookie("tutti_user");
  const tpl = document.getElementById("account-user");
  if (/^[A-Za-z0-9_]{1,30}$/.test(user) && tpl) {
    const frag = tpl.content.cloneNode(true);
    frag.querySelector(".account-name").textContent = user;
    area.replaceChildren(frag);
    area.dataset.state = "user";
  } else {
    const next = here();
    if (next) {
      for (const a of area.querySelectorAll("a[data-next]")) {
        a.href = a.pathname + "?next=" + encodeURIComponent(next);
      }
    }
  }
}
