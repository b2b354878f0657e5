// meet: the links a browser keeps. Copy buttons put full links on the
// clipboard. Without JavaScript the pages work as before: the links are shown
// in full and can be selected by hand.
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

copyButtons();
