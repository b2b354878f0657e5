// tutti: small helpers for forms, loaded by the pages that use them. Every
// form works without them.
//
// - A zone picker marked data-detect-zone (a fresh form's, on its default
//   "UTC") takes the browser's time zone, as meet's poll form does.
// - A file input with data-max-bytes tells a file over the limit beside the
//   field (its data-too-large message) as soon as it is chosen, and keeps
//   the form from being sent with it: a phone photo of 30 MB is not sent
//   for nothing.
const $$ = (sel) => Array.from(document.querySelectorAll(sel));

function detectZone() {
  let zone = "";
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { /* old browser */ }
  if (!zone) return;
  for (const sel of $$("select[data-detect-zone]")) {
    if (sel.value !== "UTC") continue;
    if (!Array.from(sel.options).some((o) => o.value === zone)) sel.add(new Option(zone, zone), 0);
    sel.value = zone;
  }
}

function checkSizes() {
  for (const input of $$("input[type=file][data-max-bytes]")) {
    const max = Number(input.dataset.maxBytes);
    const id = input.id + "-size-error";
    const tooBig = () => Array.from(input.files || []).some((f) => f.size > max);
    const show = () => {
      let p = document.getElementById(id);
      if (!tooBig()) { if (p) p.remove(); input.removeAttribute("aria-invalid"); return false; }
      if (!p) {
        p = document.createElement("p");
        p.id = id;
        p.className = "field-error";
        p.setAttribute("role", "alert");
        input.insertAdjacentElement("afterend", p);
      }
      p.textContent = input.dataset.tooLarge;
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", id);
      return true;
    };
    input.addEventListener("change", show);
    if (input.form) input.form.addEventListener("submit", (e) => { if (show()) { e.preventDefault(); input.focus(); } });
  }
}

detectZone();
checkSizes();
