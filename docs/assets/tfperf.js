// Work on a part of the page waits until the part comes near the screen: a topic page holds
// ~15,000 elements, and preparing every chart, table and scroll box on load kept a phone busy
// for seconds before the page answered a tap. tfperf.whenNear(el, fn) runs fn(el) once, when
// el is within 600 px of the screen (at once where IntersectionObserver is missing);
// tfperf.whenShown waits also for el to be shown (a fold opened); tfperfDrawAll() runs
// everything still waiting and shown (printing, tests), after fetching every long part.
var tfperf = {};
(function () {
  "use strict";
  var waiting = new Map();
  var seen = "IntersectionObserver" in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (e) { if (e.isIntersecting) { run(e.target); } });
  }, { rootMargin: "600px 0px" }) : null;
  function run(el) {
    var fns = waiting.get(el);
    if (!fns) { return; }
    waiting.delete(el);
    if (seen) { seen.unobserve(el); }
    // its block is laid out from now on (tfperf.css skips blocks off screen), so that widths
    // read in fn are the real ones
    var block = el.closest(".md-typeset > *");
    if (block) { block.style.contentVisibility = "visible"; }
    fns.forEach(function (fn) { fn(el); });
  }
  tfperf.whenNear = function (el, fn) {
    if (!seen) { fn(el); return; }
    if (waiting.has(el)) { waiting.get(el).push(fn); return; }
    waiting.set(el, [fn]);
    seen.observe(el);
  };
  // as whenNear, and only once el is shown (not in a closed <details>): fn measures it
  tfperf.whenShown = function (el, fn) {
    tfperf.whenNear(el, function again() {
      if (el.getClientRects().length) { fn(el); } else { tfperf.whenNear(el, again); }
    });
  };
  // What prepares a part of the page (charts, tables, boxes): run on the page now and on each
  // long part fetched later (render/fragments.py), in the order registered.
  var setups = [];
  tfperf.onContent = function (fn) { setups.push(fn); fn(document); };
  // A long part is a link to a file of its own, fetched into the link's place when it nears
  // the screen or its fold opens; without JavaScript, the link opens it.
  var loads = new Map();
  function load(box) {
    if (loads.has(box)) { return loads.get(box); }
    var src = box.getAttribute("data-tfperf-src");
    var p = fetch(new URL(src, document.baseURI)).then(function (r) {
      if (!r.ok) { throw new Error(r.status + " " + r.statusText); }
      return r.text();
    }).then(function (text) {
      var part = new DOMParser().parseFromString(text, "text/html").querySelector("[data-tfperf-part]");
      if (!part) { throw new Error("no part in " + src); }
      var frag = document.createDocumentFragment();
      while (part.firstChild) { frag.appendChild(document.adoptNode(part.firstChild)); }
      // a table as Material wraps the page's own (its scroll box; tfperf.css keeps a first
      // column in view within it)
      frag.querySelectorAll("table:not([class])").forEach(function (t) {
        var wrap = document.createElement("div"), inner = document.createElement("div");
        wrap.className = "md-typeset__scrollwrap";
        inner.className = "md-typeset__table";
        t.parentNode.insertBefore(wrap, t);
        wrap.appendChild(inner);
        inner.appendChild(t);
      });
      box.textContent = "";
      box.appendChild(frag);
      box.removeAttribute("style");
      box.setAttribute("data-tfperf-loaded", "");
      setups.forEach(function (fn) { fn(box); });
    }).catch(function (err) {
      console.error("tfperf: could not fetch " + src + ": " + err.message);
    });
    loads.set(box, p);
    return p;
  }
  tfperf.onContent(function (root) {
    root.querySelectorAll("[data-tfperf-src]").forEach(function (box) { tfperf.whenShown(box, load); });
  });
  // every part fetched, then everything still waiting prepared (a promise: tests wait for it)
  window.tfperfDrawAll = function () {
    var boxes = Array.from(document.querySelectorAll("[data-tfperf-src]:not([data-tfperf-loaded])"));
    return Promise.all(boxes.map(load)).then(function () {
      if (document.querySelector("[data-tfperf-src]:not([data-tfperf-loaded])")) { return window.tfperfDrawAll(); }
      Array.from(waiting.keys()).forEach(run);
    });
  };
  window.addEventListener("beforeprint", window.tfperfDrawAll);
})();

// Render every tfperf chart on the page with the vendored vega-embed (no CDN), loaded when
// the first chart nears the screen: a page's first screen waits for no chart library.
// On a site page the spec is a JSON file beside the page (the div's data-tfperf-spec) and its
// rows another, fetched when the chart nears the screen; on a page written on its own the spec
// sits beside the div as <script type="application/json" id="<div id>-spec">, its rows in
// <script id="tfperf-rows-<id>">.
(function () {
  "use strict";
  // The vendored libraries (scripts/vendor_js.sh writes these folders into the package; the
  // site hook serves them under assets/vendor/), in load order.
  var LIBS = ["vendor/vega-6.2.0/vega.min.js", "vendor/vega-lite-6.4.1/vega-lite.min.js",
              "vendor/vega-embed-7.0.2/vega-embed.min.js"];
  var here = (document.currentScript && document.currentScript.src || "").replace(/[^/]*$/, "");
  var loading = null;
  function libraries() {
    if (typeof vegaEmbed === "function") { return Promise.resolve(); }
    if (!loading) {
      loading = LIBS.reduce(function (before, src) {
        return before.then(function () {
          return new Promise(function (ok, fail) {
            var s = document.createElement("script");
            s.src = here + src;
            s.onload = ok;
            s.onerror = function () { fail(new Error("could not load " + src)); };
            document.head.appendChild(s);
          });
        });
      }, Promise.resolve());
    }
    return loading;
  }
  var opts = {
    mode: "vega-lite",
    renderer: "svg",
    // The editor/source actions would link to vega.github.io; keep only local exports.
    actions: { export: true, source: false, compiled: false, editor: false }
  };
  // Fit a spec to the width its box has (a phone: about 370 px): wrapped panels
  // (render/page/topic_chart.py) go one per row, a single panel narrows, legends stack. A grid of rows
  // and columns of panels keeps its size and scrolls in its own box (tfperf.css).
  var AXIS = 120, GAP = 24, MIN_PANEL = 180, ACTIONS = 40;
  function fit(spec, el) {
    var avail = el.clientWidth - ACTIONS;
    if (!(avail > 0)) { return; }
    if (spec.facet && spec.spec && typeof spec.columns === "number" && typeof spec.spec.width === "number") {
      var w = spec.spec.width;
      var cols = Math.max(1, Math.min(spec.columns, Math.floor((avail - AXIS + GAP) / (w + GAP))));
      spec.columns = cols;
      if (cols === 1 && w + AXIS > avail) { spec.spec.width = Math.max(MIN_PANEL, avail - AXIS); }
    } else if (!spec.facet && typeof spec.width === "number" && spec.width + AXIS > avail) {
      spec.width = Math.max(MIN_PANEL, avail - AXIS);
    }
    if (avail < 600 && spec.config) {
      // one legend under the other, each one entry a line
      spec.config.legend = Object.assign({}, spec.config.legend || {}, {
        columns: 1, labelLimit: Math.max(120, avail - 60),
        layout: { bottom: { direction: "vertical", anchor: "start" } } });
    }
  }
  // A chart is drawn when it comes near the screen (tfperf.whenNear), not on load.
  function draw(el) {
    if (el.hasAttribute("data-drawing")) { return; }
    el.setAttribute("data-drawing", "");
    libraries().then(function () { embed(el); }, function (err) {
      el.setAttribute("data-rendered", "error");
      el.textContent = "This chart could not be drawn: " + err.message;
      console.error("tfperf chart " + el.id + ": " + err.message);
    });
  }
  // A file beside the page (a chart's spec, its rows), fetched once however many charts read
  // it; each chart parses its own copy (Vega marks the rows it draws).
  var files = new Map();
  function file(src) {
    if (!files.has(src)) {
      files.set(src, fetch(new URL(src, document.baseURI)).then(function (r) {
        if (!r.ok) { throw new Error("could not fetch " + src + ": " + r.status + " " + r.statusText); }
        return r.text();
      }));
    }
    return files.get(src).then(JSON.parse);
  }
  // The spec with its rows: in files beside the page (data-tfperf-spec, render/embed.py), or
  // in the page (a page written on its own, such as tfperf advise's).
  function specOf(el) {
    var src = el.getAttribute("data-tfperf-spec");
    if (src) {
      return file(src).then(function (spec) {
        var rsrc = spec.usermeta && spec.usermeta.tfperf_rows_src;
        return rsrc ? file(rsrc).then(function (rows) { spec.datasets = { rows: rows }; return spec; }) : spec;
      });
    }
    var holder = document.getElementById(el.id + "-spec");
    if (!holder) { return Promise.reject(new Error("no spec")); }
    var spec = JSON.parse(holder.textContent);
    // Rows shared by several charts of the page are stored once (see render/embed.py).
    var rid = spec.usermeta && spec.usermeta.tfperf_rows;
    if (rid) {
      var rows = document.getElementById("tfperf-rows-" + rid);
      if (!rows) { return Promise.reject(new Error("rows " + rid + " missing")); }
      spec.datasets = { rows: JSON.parse(rows.textContent) };
    }
    return Promise.resolve(spec);
  }
  function embed(el) {
    specOf(el).then(function (spec) {
      fit(spec, el);
      return vegaEmbed(el, spec, opts);
    }).then(function () {
      tfperfNameChart(el);        // assets/name-charts.js, from the package's render/name_charts.js
      el.setAttribute("data-rendered", "true");
    }).catch(function (err) {
      el.setAttribute("data-rendered", "error");
      el.textContent = "This chart could not be drawn: " + err;
      console.error("tfperf chart " + el.id + ": " + err);
    });
  }
  tfperf.onContent(function (root) {
    root.querySelectorAll("[data-tfperf-chart]").forEach(function (el) { tfperf.whenNear(el, draw); });
  });
})();

// Tables. A name written without spaces in a cell ("eager=on,keras=2", "function_no_jit",
// "inter_op_parallelism_threads", a profiler's file path, "<runner>/<profile>.json") gets a
// break point after each _ / , > and before each dot followed by a letter, so that a narrow
// cell wraps it between its parts,
// never between letters (docs/assets/tfperf.css). Then, on small screens, a table of four or
// more columns, or of two or more that is wider than its box, is shown as cards: each cell
// labelled with its column's heading; and a long one starts folded.
(function () {
  "use strict";
  var PARTS = /([_\/,>](?=[A-Za-z0-9<])|\.(?=[A-Za-z]))/g;
  function breakable(table) {
    table.querySelectorAll("td, th").forEach(breakableCell);
  }
  function breakableCell(cell) {
    var walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT), found = [];
    for (var t = walk.nextNode(); t; t = walk.nextNode()) {
      PARTS.lastIndex = 0;
      if (PARTS.test(t.data)) { found.push(t); }
    }
    found.forEach(function (t) {
      var parts = t.data.replace(PARTS, "$1\u0000").split("\u0000"), frag = document.createDocumentFragment();
      parts.forEach(function (p, i) {
        if (i) { frag.appendChild(document.createElement("wbr")); }
        frag.appendChild(document.createTextNode(p));
      });
      t.parentNode.replaceChild(frag, t);
    });
  }
  function cards(table) {
    var heads = table.querySelectorAll("thead th");
    // a table whose columns are the point (claims × releases) scrolls in its own box instead
    if (table.closest(".tfperf-nocards") || heads.length < 2) { return; }
    var box = table.closest(".md-typeset__scrollwrap") || table.parentElement;
    // (Material may not have wrapped the table yet, and clips it to its box: its content's width)
    if (heads.length < 4 && !(box && Math.max(table.offsetWidth, table.scrollWidth) > box.clientWidth + 1)) { return; }
    // a header named for screen readers only (.tfperf-sr) gives its cells no label
    var labels = Array.prototype.map.call(heads, function (th) {
      return th.querySelector(".tfperf-sr") ? "" : th.textContent.trim();
    });
    table.querySelectorAll("tbody tr").forEach(function (tr) {
      Array.prototype.forEach.call(tr.children, function (td, i) {
        if (labels[i]) { td.setAttribute("data-label", labels[i]); }
        // a cell that says nothing ("–") is left out of the card
        if (/^[–-]?$/.test(td.textContent.trim()) && !td.querySelector("img, svg")) { td.setAttribute("data-none", ""); }
      });
    });
    table.setAttribute("data-tfperf-cards", "");
  }
  var phone = window.matchMedia && window.matchMedia("(max-width: 44.984375em)").matches;
  tfperf.onContent(function (root) {
    root.querySelectorAll(".md-typeset table").forEach(function (table) {
      tfperf.whenShown(table, function () { breakable(table); cards(table); });
    });
    // a long table (render/html.py fold) starts folded on a phone: its summary says what it holds
    if (phone) { root.querySelectorAll("details[data-tfperf-fold][open]").forEach(function (d) { d.open = false; }); }
  });
})();

// A cell's whole finding (its title) on a tap, a click or the keyboard's focus, not on hover
// alone: in a [data-tfperf-details] box (render/version_blocks.py: the claims × releases
// table, a topic's strips, every scenario per release) each cell with a title becomes a
// button, and its finding shows under the table, in a line that stays at the foot of the
// screen while the table is in view (tfperf.css). One button of a box is in the Tab order;
// the arrow keys move between them, Escape closes the line. A box inside a closed <details>
// is made ready when it opens; any box, when it nears the screen.
(function () {
  "use strict";
  var count = 0;
  function ready(box) {
    if (box.hasAttribute("data-ready")) { return; }
    box.setAttribute("data-ready", "");
    var panel = document.createElement("div");
    panel.className = "tfperf-detail";
    panel.id = "tfperf-detail-" + (++count);
    var text = document.createElement("span");
    text.setAttribute("role", "status");
    var close = document.createElement("button");
    close.type = "button";
    close.className = "tfperf-detail-close";
    close.setAttribute("aria-label", "Close this finding");
    close.textContent = "×";
    panel.appendChild(text);
    panel.appendChild(close);
    box.appendChild(panel);
    var buttons = [];
    box.querySelectorAll("td[title], li[title]").forEach(function (cell) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "tfperf-cellbtn";
      b.tabIndex = buttons.length ? -1 : 0;
      b.setAttribute("aria-expanded", "false");
      b.setAttribute("aria-controls", panel.id);
      while (cell.firstChild) { b.appendChild(cell.firstChild); }
      cell.appendChild(b);
      buttons.push(b);
    });
    var current = null;
    function hide() {
      if (current) { current.setAttribute("aria-expanded", "false"); }
      current = null;
      text.textContent = "";
      panel.classList.remove("tfperf-open");
    }
    function show(b) {
      if (current === b) { return; }
      if (current) { current.setAttribute("aria-expanded", "false"); }
      current = b;
      b.setAttribute("aria-expanded", "true");
      // the row's name, after its group's (a topic above its claims, a claim above its scenarios)
      var row = b.closest("tr"), names = [];
      for (var g = row && row.previousElementSibling; g; g = g.previousElementSibling) {
        if (g.classList.contains("tfperf-group")) { names.push(g.innerText.trim()); break; }
      }
      var head = row && row.querySelector("th");
      if (head) { names.push(head.innerText.trim()); }
      var name = names.join(" · ").replace(/\s*\n\s*/g, " · ");
      text.textContent = (name ? name + " — " : "") + b.parentNode.getAttribute("title");
      panel.classList.add("tfperf-open");
    }
    function move(from, to) {
      from.tabIndex = -1;
      to.tabIndex = 0;
      to.focus();
    }
    function vertical(b, down) {
      var cell = b.parentNode, i = cell.cellIndex, tr = cell.parentNode;
      if (typeof i !== "number" || !tr || tr.tagName !== "TR") { return buttons[buttons.indexOf(b) + (down ? 1 : -1)]; }
      for (tr = down ? tr.nextElementSibling : tr.previousElementSibling; tr;
           tr = down ? tr.nextElementSibling : tr.previousElementSibling) {
        var c = tr.cells[i], t = c && c.querySelector(".tfperf-cellbtn");
        if (t) { return t; }
      }
      return null;
    }
    box.addEventListener("click", function (e) {
      var b = e.target.closest(".tfperf-cellbtn");
      if (!b) { return; }
      if (current === b && e.detail > 0) { hide(); } else { show(b); }
    });
    // the keyboard's focus shows a finding; a tap or a click focuses too, and shows it on its own
    function keyboardFocus(el) {
      try { return el.matches(":focus-visible"); } catch (err) { return false; }
    }
    box.addEventListener("focusin", function (e) {
      var b = e.target.closest(".tfperf-cellbtn");
      if (b && keyboardFocus(b)) { show(b); }
    });
    close.addEventListener("click", function () {
      var was = current;
      hide();
      if (was) { was.focus(); }
    });
    box.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { if (current) { var was = current; hide(); was.focus(); } return; }
      var b = e.target.closest(".tfperf-cellbtn");
      if (!b) { return; }
      var i = buttons.indexOf(b), to = null;
      if (e.key === "ArrowRight") { to = buttons[i + 1]; }
      else if (e.key === "ArrowLeft") { to = buttons[i - 1]; }
      else if (e.key === "ArrowDown" || e.key === "ArrowUp") { to = vertical(b, e.key === "ArrowDown"); }
      else if (e.key === "Home") { to = buttons[0]; }
      else if (e.key === "End") { to = buttons[buttons.length - 1]; }
      else { return; }
      e.preventDefault();
      if (to) { move(b, to); }
    });
  }
  // (a box in a closed <details> comes near the screen when the <details> opens)
  tfperf.onContent(function (root) {
    root.querySelectorAll("[data-tfperf-details]").forEach(function (box) { tfperf.whenShown(box, ready); });
  });
})();

// A region that scrolls sideways (a long code line, a wide table's box) takes the keyboard's
// focus, so that it can be scrolled without a mouse (WCAG 2.1.1).
(function () {
  "use strict";
  // (measured when it nears the screen: a width read on load would lay out the whole page)
  tfperf.onContent(function (root) {
    root.querySelectorAll(".md-typeset pre, .md-typeset pre > code, .tfperf-table-wrap, .md-typeset__scrollwrap")
      .forEach(function (el) {
        tfperf.whenShown(el, function () {
          if (el.scrollWidth > el.clientWidth + 1 && !el.hasAttribute("tabindex")) { el.setAttribute("tabindex", "0"); }
        });
      });
  });
})();

// Material's search box is a dialog: it is named as such (WCAG 4.1.2).
(function () {
  "use strict";
  document.querySelectorAll('.md-search[role="dialog"]').forEach(function (d) {
    if (!d.getAttribute("aria-label")) { d.setAttribute("aria-label", "Search this site"); }
  });
})();
