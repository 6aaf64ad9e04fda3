"""Versioned JSON results files: what one is, reading and writing it safely, and every way
it changes.

Ten modules, each importing only those listed above it:

* ``record_types`` – the stored records as types (``ResultsDoc`` and what it holds), field
  for field what the schema allows, and their stable identifiers: a case's id and its
  parts, the hash of a result's key and of an environment record;
* ``result``       – the result model: one measured case as frozen dataclasses
  (``ResultRecord`` and its timing, output and interleave), which the harness builds, ``append``
  writes (``to_json``) and the analysis reads (``from_json``);
* ``schema``       – the version this tfperf writes (``SCHEMA_VERSION``), the profiles, the
  rule for names, where the packaged JSON Schema files (``schema_v1.json``,
  ``schema_v2.json``) lie, and the step-by-step migrations (``MIGRATIONS``) from older
  versions;
* ``validate``     – a document checked against the schema and the rules a schema cannot
  express, every problem named by its field;
* ``files``        – results files on disk: where they live, reading a path that may be
  hostile (a regular file only, within a size limit; topic YAMLs, snippets and the files
  the site publishes are read this way too), loading (migrated and validated), the
  canonical text, atomic writes;
* ``lock``         – the exclusive lock of one results file (a sibling ``.lock`` file), and
  the Windows one-byte locks (``msvcrt.locking``) that it and ``claims`` take;
* ``claims``       – which ``tfperf run`` is measuring which scenario of a file (a sibling
  ``.claims`` file), so that two runs share the work;
* ``merge``        – documents of one runner and profile merged into one, order-independent
  and idempotent; the CI merge step into ``<data>/results/<runner>/<profile>.json``; what a
  data pull request may change (add records, never remove or rewrite one; the benchmarks
  bot's runners left to the bot); the warning about a file a newer tfperf wrote;
* ``append``       – a run adding a scenario's records to its file under the file's lock;
* ``relabel``      – a document's identities rewritten (a runner renamed, package versions
  a run failed to record filled in), every hash and reference kept consistent.

This package exports the names the other stages use most (``__all__`` below):

Read:   ``load(path)``, ``load_dir(root)``, ``read(path)``, ``parse(text)``, ``find_files(root)``,
        ``validate(doc, path)`` (``ResultsSchemaError``), ``problems(doc)``, ``migrate(doc, path)``
Write:  ``new_doc(...)``, ``results_path(...)``, ``dumps(doc)``, ``write_atomic(path, doc)``,
        ``append(path, ...)`` (which takes the file's lock, ``locked(path)``; ``ResultExists``),
        ``Claims(path)`` (which run measures which scenario)
Merge:  ``merge_docs(docs)`` (``MergeError``), ``merge_into(data_root, paths)`` (the CI merge
        step; a ``MergeReport``)
Schema: ``SCHEMA_VERSION``, ``MIGRATIONS``, ``PROFILES``, ``NAME_RE``, ``is_name``,
        ``schema_path()``

``append`` and ``validate`` here are the functions; their modules are
``tfperf.store.append`` and ``tfperf.store.validate``, which ``importlib.import_module`` finds.
Other names are imported from their modules (``tfperf.store.record_types``,
``tfperf.store.merge``...).
"""

from .append import ResultExists, append
from .claims import Claims
from .files import dumps, find_files, load, load_dir, new_doc, parse, read, results_path, write_atomic
from .lock import locked
from .merge import MergeError, MergeReport, merge_docs, merge_into
from .schema import MIGRATIONS, NAME_RE, PROFILES, SCHEMA_VERSION, is_name, migrate, schema_path
from .validate import ResultsSchemaError, problems, validate

__all__ = [
    "MIGRATIONS", "NAME_RE", "PROFILES", "SCHEMA_VERSION", "Claims", "MergeError", "MergeReport", "ResultExists",
    "ResultsSchemaError", "append", "dumps", "find_files", "is_name", "load", "load_dir", "locked", "merge_docs",
    "merge_into", "migrate", "new_doc", "parse", "problems", "read", "results_path", "schema_path", "validate",
    "write_atomic",
]
