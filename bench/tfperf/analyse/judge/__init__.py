"""Judging results: speedups with their intervals, and what each comparison found, in the
guide's one vocabulary. These modules import ``records`` and ``versions``, never ``dataset``
or ``views``; each imports only those listed above it.

* ``effects``   – the one vocabulary: a comparison's finding (faster, slower, the same,
  unclear), a summary over scenarios, a claim's verdict, their words, symbols and CSS;
* ``scenarios`` – per scenario: speedups with confidence intervals (computed once per pair
  of sample sets), noise floors, the fastest correct variant and its speedup over the
  default (the recommendations), settings groups against the baseline settings, and the
  negative controls (settings pairs that must measure the same);
* ``per_step``  – a call's fixed cost apart from its cost per step, and when a compile
  step's slower first call pays off (with what a ten-run average would have said);
* ``claims``    – claims tested per scenario and runner;
* ``arrivals``  – the per-request arrival patterns: percentiles, speedups, claims per pattern;
* ``version_verdicts`` – a claim's finding per release on a runner, and where it changed.
"""
