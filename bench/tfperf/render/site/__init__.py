"""The site build and the MkDocs hooks that run it. mkdocs.yml names the three hooks by path
(``hooks:``); each only connects MkDocs events to a module here.

* ``site``           – one site build over one analysed dataset: placeholders filled, notebook
  pages added, the raw data published;
* ``inline``         – inline figures for prose (``{{ tfperf.speedup(...) }}`` and friends);
* ``page_meta``      – the site's address, each page's description, the notebook pages'
  titles, what search leaves out;
* ``faults``         – the "Faults we test" table, generated from the tests;
* ``mkdocs_hook``    – the hook that runs ``site``;
* ``page_meta_hook`` – the hook that applies ``page_meta``;
* ``faults_hook``    – the hook that fills the "Faults we test" page.
"""
