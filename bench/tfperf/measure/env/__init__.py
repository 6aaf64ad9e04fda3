"""What the machine and the software are, read in the parent (result keys, runner labels,
the machine's state around a scenario) and in the worker (each result's environment
record). Nothing here imports TensorFlow: a function that needs it is given the worker's
module.

* ``envinfo``      – the environment record of every result: OS, CPU, package versions, the
  git commit, runner labels, and TensorFlow's build and devices (given the imported module);
* ``machine``      – what the operating system says through psutil, on every platform:
  memory, CPU time, load, whether a process runs, killing a process tree; the workers'
  memory cap;
* ``hygiene``      – how busy the machine was around a scenario, apart from the scenario;
* ``availability`` – which cases cannot exist in the worker's TensorFlow, and why;
* ``venvs``        – one virtual environment per TensorFlow release, for ``tfperf run --tf``.
"""
