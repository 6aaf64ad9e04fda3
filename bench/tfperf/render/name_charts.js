// Names a drawn chart for a screen reader, the same way on the site (docs/assets/tfperf.js
// calls it after each chart is drawn) and on `tfperf advise`'s page (which inlines this file):
// the "…" menu and its dialog get names; the drawing is named as its figure is; marks Vega
// left without a name are hidden from screen readers, which would read each as an unnamed
// image (the tables beside the charts hold the figures).
function tfperfNameChart(el) {
  "use strict";
  el.querySelectorAll("summary").forEach(function (s) {
    s.setAttribute("aria-label", "Chart menu: save the chart or view its data");
  });
  el.querySelectorAll(".vega-actions").forEach(function (d) { d.setAttribute("aria-label", "Chart menu"); });
  var svg = el.querySelector("svg");
  if (svg && !svg.getAttribute("aria-label")) { svg.setAttribute("aria-label", el.getAttribute("aria-label") || "chart"); }
  el.querySelectorAll("svg [role]").forEach(function (g) {
    if (!g.getAttribute("aria-label")) { g.setAttribute("aria-hidden", "true"); }
  });
}
