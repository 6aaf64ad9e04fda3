"""The terminal and HTML reports of the CLI, in the same words as the pages. They import
``page`` and ``charts``; only the CLI imports them.

* ``advise_text``   – ``tfperf advise``: the answers about the reader's model as text and JSON;
* ``advise_html``   – ``tfperf advise --html``: the same answers as one self-contained page
  with the site's charts;
* ``advise_beside`` – ``tfperf advise``: each answer beside what the guide found on the
  published runner with the same CPU;
* ``answers_text``  – ``tfperf answers``: every topic's questions and answers as text;
* ``versus_text``   – ``tfperf compare`` as text (the analysis is ``analyse.views.versus``).
"""
