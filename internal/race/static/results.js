// race's results search box: suggestions from .../names?q= as a runner
// types (a <datalist>), and picking one shows that runner. The form works
// without this script: it searches on submit.
const input = document.querySelector("input[data-names]");
if (input) {
  const list = document.getElementById(input.getAttribute("list"));
  let timer = 0, asked = "", pending = null;
  const suggest = async () => {
    const q = input.value.trim();
    if (q === asked || (q.length < 2 && !/^\d+$/.test(q))) return;
    asked = q;
    pending?.abort();
    pending = new AbortController();
    try {
      const res = await fetch(input.dataset.names + "?q=" + encodeURIComponent(q),
        { headers: { Accept: "application/json" }, signal: pending.signal });
      if (!res.ok) return;
      const names = await res.json();
      list.replaceChildren(...names.map((n) => {
        const o = document.createElement("option");
        o.value = n.name + " #" + n.bib; // the search reads "#123" at the end as the bib
        return o;
      }));
    } catch { /* aborted or offline: the form still searches */ }
  };
  input.addEventListener("input", (ev) => {
    clearTimeout(timer);
    // A suggestion picked from the list: go to that runner.
    if (ev.inputType === "insertReplacementText" || ev.inputType === undefined) {
      if ([...list.options].some((o) => o.value === input.value)) {
        input.form.requestSubmit();
        return;
      }
    }
    timer = setTimeout(suggest, 120);
  });
}
