"""The blocks a page shows: each placeholder kind (``<!-- tfperf:KIND ... -->``) rendered to
HTML from an analysed ``Dataset``. They import ``page`` and ``charts``; ``site`` imports them.

* ``blocks``          – the dispatcher: each placeholder kind to its renderer; the common
  tables and charts of a topic;
* ``topic_blocks``    – block kinds only some topics need;
* ``advice_block``    – the "Do this" box at the top of a topic page;
* ``settings_advice_block`` – the "Do this" box of a topic that compares process settings;
* ``then_now_lines``  – a "Do this" box's lines: a source's figure beside today's finding;
* ``answers_block``   – the reader's questions answered first;
* ``arrivals_block``  – requests as a server sees them (the arrival patterns);
* ``per_step_block``  – a call's fixed cost apart from its cost per step;
* ``version_blocks``  – findings across TensorFlow releases (strips and the home page table);
* ``local_blocks``    – the "this machine" sections beside the published runners;
* ``failures``        – the Data page's list of failed results, of every topic.
"""
