"""Versioned JSON results files: what one is, reading and writing it safely, and every way
it changes.

Three sub-packages by role, each lower one imported by the ones above it, over two modules
that cases, measure, analyse and render import directly:

* ``record_types`` – the stored records as types (``ResultsDoc`` and what it holds), field
  for field what the schema allows;
* ``ids``          – stable identifiers: a case's id and its parts, the hash of a result's
  key and of an environment record;
* ``format/``      – what a results file is: the schema and its version, validation,
  migrations, which tfperf wrote a file;
* ``disk/``        – results files on disk: where they live, loading, the canonical text,
  atomic writes, reading a path that may be hostile, the file's lock and a run's claims;
* ``write/``       – what changes a results file: merge, append, the CI merge step,
  relabelling, what a data pull request may change.

Each sub-package's ``__init__`` names its modules and what each is for.

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

``append``, ``migrate`` and ``validate`` here are the functions; their modules are
``write.append``, ``format.migrate`` and ``format.validate``. Other names are imported from
their modules (``tfperf.store.record_types``, ``tfperf.store.write.guard``...).
"""

from .claims import Claims
from .files import dumps, find_files, load, load_dir, new_doc, parse, read, results_path, write_atomic
from .lock import locked
from .format.migrate import MIGRATIONS, migrate
from .format.schema import NAME_RE, PROFILES, SCHEMA_VERSION, is_name, schema_path
from .format.validate import ResultsSchemaError, problems, validate
from .append import ResultExists, append
from .merge import MergeError, MergeReport, merge_docs, merge_into

__all__ = [
    "MIGRATIONS", "NAME_RE", "PROFILES", "SCHEMA_VERSION", "Claims", "MergeError", "MergeReport", "ResultExists",
    "ResultsSchemaError", "append", "dumps", "find_files", "is_name", "load", "load_dir", "locked", "merge_docs",
    "merge_into", "migrate", "new_doc", "parse", "problems", "read", "results_path", "schema_path", "validate",
    "write_atomic",
]
