"""Rendering: Altair charts, HTML tables and the MkDocs hooks that put them into pages, and
the CLI's text and HTML reports. Three sub-packages, each lower one imported by those above,
and the reports on top:

* ``page/``     – what every part of a page is made of: HTML and numbers, the placeholders
  and the shared context, chart embedding and the vendored chart libraries, the charts,
  the notebooks;
* ``blocks/``   – the blocks a page shows, one renderer per placeholder kind;
* ``site/``     – the site build and the MkDocs hooks (named by path in mkdocs.yml);
* ``advise``    – the report of ``tfperf advise``: text, JSON and one HTML page;
* ``text``      – the terminal text of ``tfperf answers`` and ``tfperf compare``.

``vendor/`` holds the vendored chart libraries and ``name_charts.js`` our script that names a
drawn chart (package data: :mod:`.page.embed` serves and inlines them). Each sub-package's
``__init__`` names its modules and what each is for. Render reads the analysis through the
facade ``tfperf.analyse`` only.
"""
