"""The blocks a page shows: each placeholder kind (``<!-- tfperf:KIND ... -->``) rendered to
HTML from an analysed ``Dataset``. They import ``page``; ``site`` imports them.

* ``blocks``         – the dispatcher: each placeholder kind to its renderer; the common
  tables and charts of a topic; the blocks of the home, Runners and Data pages (findings,
  runners, data files, load errors, failed results);
* ``answers_block``  – what a page answers first: the reader's questions answered, and the
  "Do this" box with what changed since the source;
* ``first_screen``   – how much of an answer a phone's first screen holds, and which of
  its forms to show;
* ``topic_blocks``   – block kinds only some topics need (settings, metrics, break-even,
  ten-run mean, outputs, requests as a server sees them);
* ``per_step_block`` – a call's fixed cost apart from its cost per step;
* ``version_blocks`` – findings across TensorFlow releases (strips and the home page table);
* ``local_blocks``   – the "this machine" sections beside the published runners.
"""
