"""Versioned JSON results files: schema, validation, migration, atomic writes, merge.

Read:   ``load(path)``, ``load_dir(root)``, ``validate(doc, path)``, ``migrate(doc, path)``
Write:  ``new_doc(...)``, ``write_atomic(path, doc)``, ``append(path, ...)`` (locked)
Merge:  ``merge_docs(docs)``, ``merge_into(data_root, paths)`` (the CI merge step)
Also:   ``claims.Claims`` (which run is measuring which scenario of a file), ``versions``
        (which tfperf wrote a file, for the merge's warning), ``regular.read_regular``
        (reading a file that may be hostile: a regular file only, within a size limit),
        ``guard`` (what a data pull request may change)
"""

from .append import ResultExists, append
from .disk.claims import Claims
from .disk.files import dumps, find_files, load, load_dir, new_doc, parse, read, results_path, write_atomic
from .disk.lock import locked
from .format.migrate import MIGRATIONS, migrate
from .format.schema import NAME_RE, PROFILES, SCHEMA_VERSION, is_name, schema_path
from .format.validate import ResultsSchemaError, problems, validate
from .intake import MergeReport, merge_into
from .merge import MergeError, merge_docs

__all__ = [
    "MIGRATIONS", "NAME_RE", "PROFILES", "SCHEMA_VERSION", "Claims", "MergeError", "MergeReport", "ResultExists",
    "ResultsSchemaError", "append", "dumps", "find_files", "is_name", "load", "load_dir", "locked", "merge_docs",
    "merge_into", "migrate", "new_doc", "parse", "problems", "read", "results_path", "schema_path", "validate",
    "write_atomic",
]
