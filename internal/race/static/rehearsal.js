// The load rehearsal's live gauges: the page asks for them every second
// and, once the rehearsal has ended, reloads itself to show the report.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live) return;
  var url = live.getAttribute("data-progress");
  var set = function (id, v) {
    var el = document.getElementById(id);
    if (el) el.textContent = v;
  };
  var tick = function () {
    fetch(url, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (p) {
        if (!p) return;
        if (!p.live) { location.reload(); return; }
        set("stage", p.label);
        set("arrived", p.arrived);
        set("active", p.active);
        set("registered", p.registered);
        set("failed", p.failed);
        set("rps", p.requests_per_s.toFixed(1));
        set("errors", p.errors);
        set("elapsed", p.elapsed_s.toFixed(1));
        var bar = document.getElementById("bar");
        if (bar) { bar.value = p.percent; bar.textContent = p.percent + " %"; }
      })
      .catch(function () {})
      .then(function () { setTimeout(tick, 1000); });
  };
  setTimeout(tick, 1000);
})();
