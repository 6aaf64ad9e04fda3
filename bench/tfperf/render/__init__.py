"""Rendering: Altair charts, HTML tables and the MkDocs hook that puts them into pages.

* ``html``       – escaping (every data string), tables, number formats;
* ``charts``     – Vega-Lite specs of a topic's results;
* ``embed``      – a chart as HTML (vega-embed + SVG fallback, cached);
* ``fragments``  – a page's long parts in files of their own, fetched as the reader nears them;
* ``directives`` – the placeholders pages carry; ``blocks``/``inline`` render them;
* ``failures``   – the Data page's list of failed results (every topic, with or without a page);
* ``vendor_js``  – the vendored chart libraries (``vendor/``), served by the site and inlined by advise;
* ``notebooks``  – a topic's snippet as a notebook (jupytext);
* ``site``       – one site build; ``mkdocs_hook`` connects it to MkDocs events.
"""
