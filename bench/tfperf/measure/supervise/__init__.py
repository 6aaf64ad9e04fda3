"""The parent process that runs a plan (``tfperf run``, ``compare``, ``advise``). It never
imports TensorFlow: it starts the workers and talks to them in the messages of
``worker.protocol``.

* ``orchestrate`` – the run: plan the scenarios, skip what its results file already holds
  (read when it plans and again before each scenario, so that two runs on one file
  measure nothing twice), measure each scenario, turn crashes into failure records,
  append each scenario's records as soon as it ends; the one-line progress bar on stderr;
* ``scenario``    – one scenario side by side: its workers supervised, every case prepared in
  its settings group's worker, the output check's reference (which case saves its output,
  and which cases compare with that file), interleaved rounds until the rule says stop;
* ``rounds``      – interleaved rounds: the seeded order of each round and the stopping
  rule; a per-request arrival pattern's Poisson schedule, drawn in advance, and how long
  a block lasts;
* ``records``     – a task (one case to measure or break down, with its result key) and
  what a scenario leaves to store, built from what it measured: results, the A/A pair's
  noise record, the scenario record with how busy the machine was around it, breakdowns;
* ``pool``        – the worker processes: one live worker per settings group, each command
  under a deadline, a worker that hangs, dies or outgrows the memory cap killed; how a
  worker gets its pipe, how the parent waits on it and how a worker is killed, the POSIX
  way and the Windows way.
"""
