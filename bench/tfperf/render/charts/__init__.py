"""The charts: Vega-Lite specs built with Altair, and what they say in words. They import
``page``; the blocks and the ``tfperf advise`` report import them.

* ``builder``        – the skeleton every chart is built on: the rows' values, the
  dropdowns, the axes, the shared layers (points, CI rules, the 1× line), panels, the
  finished spec and its static variant; the palette and :class:`ChartError`;
* ``topic_chart``    – a topic's results as charts (variants per scenario);
* ``settings_chart`` – a chart with a process setting on the x axis (threads, oneDNN, ...);
* ``version_chart``  – a claim's speedup per TensorFlow release, under its strip of findings;
* ``chart_words``    – what a chart says in words: its name for a screen reader, the
  topic's main finding, the runners' machines for its choices and tooltips.
"""
