"""Loading and selecting results: the documents read from a data root and turned into plain
records, before anything is judged. These modules import nothing of ``judge`` or ``views``.

* ``source``   – read the results files of a data root through the store's loader;
* ``records``  – flatten documents into measurements, A/A noise records, runners, chart rows;
* ``versions`` – TensorFlow releases: which one a result measured, numeric order, labels;
* ``select``   – stale marking, the current result per case, history per release;
* ``noise``    – a runner's noise floor from its stored A/A pairs;
* ``failures`` – failed results in words ("failed: N cases", the first error);
* ``origins``  – the figures a topic's sources reported, from ``docs/sources/<topic>.yaml``.
"""
