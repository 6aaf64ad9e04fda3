"""tfperf: measure TensorFlow performance claims, store the results, analyse and render them.

Stages, each usable on its own:

* ``tfperf.cases``    – the case grid of a topic (YAML beside its snippet), case ids and keys;
* ``tfperf.measure``  – worker processes that time cases (the only place TensorFlow is imported);
* ``tfperf.store``    – versioned JSON result files: schema, migrations, atomic writes, merge;
* ``tfperf.analyse``  – statistics over stored results: comparisons, verdicts, recommendations;
* ``tfperf.render``   – charts, tables and the MkDocs hook that puts them into pages;
* ``tfperf.cli``      – the ``tfperf`` command, a thin layer over the stages.

Below them, the foundation every stage may import (the worker too: standard library and
numpy only):

* ``errors``   – the one root of user-facing errors, ``TfperfError``, and its kinds;
* ``stats``    – statistics over timing samples, the stopping rule and a case's ``Budget``;
* ``hardware`` – which CPU a machine has, as a runner label's class and as its identity;
* ``arrival``  – how a scenario's requests arrive (back to back, idle, Poisson).
"""

__version__ = "0.1.0"
# Part of every result's key: bump when a change to the harness changes what it measures.
# 4: outputs checked against the baseline settings' reference across processes; wide
# scenarios extended until 3%, not 5%.
HARNESS_VERSION = "4"
