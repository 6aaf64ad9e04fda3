"""Measuring: the cases timed in worker processes, the only stage that imports TensorFlow
(inside its workers, never in the parent).

Three sub-packages by role, and two modules both sides use:

* ``supervise/`` – the parent process that runs a plan: scenarios planned and claimed, one
  live worker per settings group, interleaved rounds, each scenario's records appended to
  the results file as it ends;
* ``worker/``    – what runs inside the measuring child process
  (``python -m tfperf.measure.worker.serve``): the worker, its messages with the parent,
  the timing loop and the stack sampler, the outputs check;
* ``advise/``    – ``tfperf advise MODEL``: a reader's model taken through the guide's
  questions with this harness;
* ``envinfo``    – what the machine and the software are: each result's environment
  record, psutil's figures and the workers' memory cap, which cases a TensorFlow release
  cannot have;
* ``venvs``      – one virtual environment per TensorFlow release, for ``tfperf run --tf``;
* ``host_probe`` – a fixed piece of CPU work timed before and after each scenario, so that
  two runs of it on a faster and a slower host show as such in the data.

``supervise`` imports ``envinfo``, ``host_probe`` and the message types of ``worker.protocol``; ``worker``
imports ``envinfo``; ``envinfo`` and ``host_probe`` import neither; ``venvs`` imports ``envinfo`` and nothing
of the workers; ``advise`` runs its topics through ``supervise.orchestrate`` (the
"measure-roles" contract in pyproject.toml). Each sub-package's ``__init__`` names its
modules and what each is for, and imports nothing: modules are imported where they are
used.
"""
