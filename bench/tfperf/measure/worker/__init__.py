"""What runs inside the measuring child process, started by ``supervise.pool`` as
``python -m tfperf.measure.worker.serve``. It may run in another TensorFlow release's venv,
so it imports the standard library, numpy, TensorFlow and the harness's own imports (psutil)
and nothing else of the project's dependencies (tests/measure/worker/test_worker_imports.py).

* ``serve``    – the worker: imports TensorFlow once under fixed process settings, then
  answers the parent's commands (prepare, sample, release, breakdown) one at a time;
* ``protocol`` – the messages between the parent and a worker, as types (the parent's
  ``supervise`` modules import them too);
* ``timing``   – the timing loop: first call, warm-up, calibration, samples until the median's
  interval is tight or the budget is spent; the blocks of requests of the arrival patterns;
  the stack sampler of the breakdown runs: where a call spends its time;
* ``outputs``  – outputs brought to the host, saved by the baseline's worker, and compared
  with the reference variant's.
"""
