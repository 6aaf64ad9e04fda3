"""The views pages and reports need, built from the computed ``Dataset`` (``..dataset``) or
from two sets of results compared. Nothing in ``load`` or ``judge`` imports them.

* ``answers``  – each claim and each of a topic's questions answered in words;
* ``advice``   – a topic's "Do this" answer: the call to use instead of the default;
* ``settings_advice`` – the "Do this" answer of a topic that compares process settings;
* ``findings`` – the home page's table of every claim;
* ``versions_table`` – the home page's table of claims × releases;
* ``then_now`` – a source's figure beside today's finding on the claim that tests it;
* ``versus``   – this machine's results against the published runners (``tfperf compare``);
  not to be confused with ``judge.scenarios``, which compares variants within one scenario;
* ``local``    – this machine's own results beside the published ones, for the site;
* ``regress``  – regressions between two result sets of one runner (the CI's report).
"""
