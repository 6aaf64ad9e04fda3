"""Analysis of stored results: pure functions over loaded documents, no TensorFlow.

* ``source``   – read the results files (through the store when available);
* ``records``  – flatten documents into measurements, A/A noise records, runners;
* ``select``   – stale marking, the current result per case, history per version;
* ``compare``  – scenarios and recommendations (fastest correct variant vs the default);
* ``claims``   – claim verdicts per scenario and runner;
* ``versions`` – TensorFlow releases: which one a result measured, numeric order, labels;
* ``version_verdicts`` – a claim's verdict per release on a runner, and where it changed;
* ``versions_table``   – the home page's claims × releases table;
* ``findings`` – the headline table of the home page;
* ``failures`` – failed results in words ("failed: N cases", the first error);
* ``dataset``  – all of it computed once: ``analyse(results_root, snippets_dir)``.
"""

from .dataset import Dataset, analyse

__all__ = ["Dataset", "analyse"]
