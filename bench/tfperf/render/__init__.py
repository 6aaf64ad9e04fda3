"""Rendering: Altair charts, HTML tables and the MkDocs hooks that put them into pages, and
the CLI's text and HTML reports. Five sub-packages, each lower one imported by those above:

* ``page/``   – what every part of a page is made of: HTML, numbers, chart embedding, fragments,
  the shared context, placeholders, notebooks;
* ``charts/`` – the Vega-Lite charts and what they say in words;
* ``blocks/`` – the blocks a page shows, one renderer per placeholder kind;
* ``site/``   – the site build and the MkDocs hooks (named by path in mkdocs.yml);
* ``report/`` – the reports of ``tfperf advise``, ``tfperf answers`` and ``tfperf compare``;
* ``vendor_js`` – the vendored chart libraries (``vendor/``), served by the site and inlined by advise.

Each sub-package's ``__init__`` names its modules and what each is for. Render reads the
analysis through the facade ``tfperf.analyse`` only.
"""
