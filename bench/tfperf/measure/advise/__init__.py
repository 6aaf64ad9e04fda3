"""``tfperf advise MODEL``, its measuring side: the reader's saved model taken through the
guide's questions with the guide's own harness.

* ``model``        – the path checked without TensorFlow (exists, a ``.keras`` file or a
  SavedModel directory), ``--input-shape`` and ``--dtype`` read, :class:`AdviseError`;
  then the model loaded and called once in a fresh process (``probe_worker``), which reads
  its input signature: a :class:`ModelSpec`, or one error line naming the path and the
  problem;
* ``probe_worker`` – that fresh process (``python -m tfperf.measure.advise.probe_worker``);
* ``snippet``      – the snippet every generated topic runs (copied beside the topics,
  with the model's path and input in a JSON file next to it);
* ``topics``       – the generated topics: YAMLs in the guide's schema, one per question
  (predict vs call, XLA, serving formats, threads and oneDNN), measured one after the
  other by ``measure.supervise.orchestrate`` within the reader's time budget; Ctrl-C keeps
  what was measured.

The parent never imports TensorFlow: only ``snippet`` and ``probe_worker`` do, in workers.
"""
