"""The views pages and reports need, built from the computed ``Dataset`` (``..dataset``) or
from two sets of results compared. Nothing in ``judge`` or the loading modules imports them.

* ``answers`` – each claim and each of a topic's questions answered in words, and the
  tables that gather the claims: the home page's table of every claim and its table of
  claims × releases, and a source's figure beside today's finding (then and now);
* ``advice``  – a topic's "Do this" answer: the call to use instead of the default, or, for
  a topic that compares process settings, the setting to change;
* ``versus``  – this machine's results against the published runners (``tfperf compare``,
  and the site's "this machine" sections); not to be confused with ``judge.scenarios``,
  which compares variants within one scenario;
* ``regress`` – regressions between two result sets of one runner (the CI's report);
* ``controls`` – every negative control of each runner: how far apart two worker processes
  with the same settings landed (How we measure, ``scripts/method_report.py``).
"""
