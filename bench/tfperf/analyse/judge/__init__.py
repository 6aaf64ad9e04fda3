"""Judging results: speedups with their intervals, and what each comparison found, in the
guide's one vocabulary. These modules import ``load``, never ``views``.

* ``effects``   – the one vocabulary: a comparison's finding (faster, slower, the same,
  unclear), a summary over scenarios, a claim's verdict, their words, symbols and CSS;
* ``ratios``    – speedups with confidence intervals, computed once per pair of sample sets;
* ``scenarios`` – per scenario, the fastest correct variant and its speedup over the default
  (the recommendations);
* ``settings``  – speedups of process-settings groups against a topic's baseline settings;
* ``per_step``  – a call's fixed cost apart from its cost per step;
* ``controls``  – negative controls: settings pairs that must measure the same;
* ``claims``    – claims tested per scenario and runner;
* ``arrivals``  – the per-request arrival patterns: percentiles, speedups, claims per pattern;
* ``version_verdicts`` – a claim's finding per release on a runner, and where it changed;
* ``breakeven`` – when a compile step pays off, and what a ten-run average would have said.
"""
