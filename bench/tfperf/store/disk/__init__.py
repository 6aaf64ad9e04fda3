"""Results files on disk: reading them without trusting them, writing them so that no reader
sees half a file, and keeping two processes from writing one file at once.

* ``files``         – where results files live, parsing and loading one (migrated and
  validated), the canonical text, atomic writes;
* ``regular``       – reading a path that may be hostile: a regular file only, within a size
  limit (topic YAMLs, snippets and the files the site publishes are read with it too);
* ``lock``          – the exclusive lock of one results file (a sibling ``.lock`` file);
* ``claims``        – which ``tfperf run`` is measuring which scenario of a file (a sibling
  ``.claims`` file), so that two runs share the work;
* ``windows_locks`` – ``msvcrt.locking`` of one byte, the Windows kind of ``lock`` and
  ``claims``.

Builds on ``format/``; ``write/`` builds on this package.
"""
