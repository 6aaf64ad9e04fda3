// Render every tfperf chart on the page with the vendored vega-embed (no CDN).
// The spec sits beside each chart div as <script type="application/json" id="<div id>-spec">;
// its rows, when shared with other charts of the page, in <script id="tfperf-rows-<id>">.
(function () {
  "use strict";
  var opts = {
    mode: "vega-lite",
    renderer: "svg",
    // The editor/source actions would link to vega.github.io; keep only local exports.
    actions: { export: true, source: false, compiled: false, editor: false }
  };
  document.querySelectorAll("[data-tfperf-chart]").forEach(function (el) {
    var holder = document.getElementById(el.id + "-spec");
    if (!holder || typeof vegaEmbed !== "function") { return; }
    var spec = JSON.parse(holder.textContent);
    // Rows shared by several charts of the page are stored once (see render/embed.py).
    var rid = spec.usermeta && spec.usermeta.tfperf_rows;
    if (rid) {
      var rows = document.getElementById("tfperf-rows-" + rid);
      if (!rows) { el.setAttribute("data-rendered", "error"); console.error("tfperf chart " + el.id + ": rows " + rid + " missing"); return; }
      spec.datasets = { rows: JSON.parse(rows.textContent) };
    }
    vegaEmbed(el, spec, opts).then(function () {
      el.setAttribute("data-rendered", "true");
    }).catch(function (err) {
      el.setAttribute("data-rendered", "error");
      el.textContent = "This chart could not be drawn: " + err;
      console.error("tfperf chart " + el.id + ": " + err);
    });
  });
})();
