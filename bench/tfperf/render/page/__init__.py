"""What every part of a page is made of; these modules import nothing else of render.

* ``html``           – how a page writes: HTML built safely (every data string escaped;
  tables, folds, links) and numbers as the pages print them;
* ``embed``          – what a page loads beside itself: a chart as HTML (vega-embed, the spec
  as JSON, a static SVG fallback, cached), the vendored chart libraries, and the long parts
  fetched as the reader nears them;
* ``context``        – what a block renderer is given: the placeholder, parsed, and the
  page's ``Context`` with the small pieces each figure carries (finding badge, "no results
  yet", stale marks, provenance);
* ``builder``        – the skeleton every chart is built on (the rows' values, the dropdowns,
  the axes, the shared layers, panels, the finished spec), the palette and
  :class:`ChartError`, and what a chart says in words (its name for a screen reader, the
  runners' machines);
* ``topic_chart``    – a topic's results as charts (variants per scenario), and a claim's
  speedup per TensorFlow release under its strip of findings;
* ``settings_chart`` – a chart with a process setting on the x axis (threads, oneDNN, ...);
* ``notebooks``      – a topic's snippet as a Jupyter notebook (jupytext), and the
  "Open in Colab" link of its notebook page.
"""
