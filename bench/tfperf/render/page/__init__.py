"""What every part of a page is made of; these modules import nothing else of render.

* ``html``       – building HTML safely: every data string escaped; tables, folds, links;
* ``numbers``    – numbers as the pages write them: every rule of how a figure is printed;
* ``embed``      – a chart as HTML: vega-embed, the spec as JSON, a static SVG fallback (cached);
* ``fragments``  – a page's long parts in files of their own, fetched as the reader nears them;
* ``context``    – what every block shares: the page's ``Context`` and the small pieces each
  figure carries (finding badge, "no results yet", stale marks);
* ``directives`` – the placeholders a page's Markdown carries, parsed;
* ``notebooks``  – a topic's snippet as a Jupyter notebook (jupytext);
* ``colab``      – the "Open in Colab" link of a topic's notebook page.
"""
