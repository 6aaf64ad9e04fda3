"""What a results file is: its schema and version, the checks a document must pass, and
the steps that bring an older file up to date.

* ``schema``         – the version this tfperf writes (``SCHEMA_VERSION``), the profiles, the
  rule for names, and where the packaged JSON Schema files lie;
* ``schema_v1.json``, ``schema_v2.json`` – the JSON Schema of each version (package data);
* ``validate``       – a document checked against the schema and the rules a schema cannot
  express, every problem named by its field;
* ``migrate``        – the step-by-step migrations (``MIGRATIONS``) and which versions this
  tfperf can read;
* ``versions``       – which tfperf wrote a file, against the one reading it (the merge's
  warning).

No module here imports ``disk/`` or ``write/``: they build on this one.
"""
