"""A stand-in for ``python -m tfperf.measure.worker.serve`` that speaks the worker's pipe protocol
without TensorFlow, for orchestrator tests that need many processes at once.

Used as ``RunOptions(python=<script that runs this file>)``: the orchestrator starts
``<python> -m tfperf.measure.worker.serve FD``; this file ignores "-m ..." and takes FD. Every
case prepares at once and "measures" each sample block in ``FAKE_WORKER_DELAY_S``
seconds; the sample's value is ``FAKE_WORKER_SECONDS`` (default 0.001). With
``FAKE_WORKER_LOG`` set, each block appends "pid settings task start end" to that file,
and each prepare a JSON line (with the output-check fields it was sent) to ``<log>.prepare``.
Tasks whose id ends with ``FAKE_WORKER_NOISY`` get samples scattered by +-50%.
A case of a per-request arrival pattern (its task's ``arrival``) answers each block with
one latency per request (``FAKE_WORKER_SECONDS`` times the request's number in the block),
and a back-to-back block when asked; with ``FAKE_WORKER_LOG`` set, each Poisson schedule is
appended to ``<log>.schedule``.
"""

from __future__ import annotations

import copy
import json
import os
import random
import sys
import time
from pathlib import Path

from tfperf.measure import envinfo
from tfperf.measure.worker.serve import read_command, read_job  # the real protocol (no TensorFlow import)

VALID = json.loads((Path(__file__).parent / "fixtures" / "results" / "valid.json").read_text(encoding="utf-8"))
PARENT_FIELDS = {"case_id", "topic", "params", "settings", "variant", "is_reference", "is_default", "key",
                 "key_hash", "env_id", "interleave"}


def main() -> int:
    out = os.fdopen(int(sys.argv[-1]), "w", buffering=1, encoding="utf-8")
    job = read_job(sys.stdin)
    delay = float(os.environ.get("FAKE_WORKER_DELAY_S", "0.01"))
    value = float(os.environ.get("FAKE_WORKER_SECONDS", "0.001"))
    # The machine's fields as the real worker reads them: a runner label names one CPU, and
    # a run refuses a file whose environments name another one.
    machine = envinfo.machine_info()
    env = {**copy.deepcopy(next(iter(VALID["environments"].values()))), "runner": job["runner"],
           "settings": job["settings"], **{k: machine[k] for k in ("cpu_model", "cpu_signature", "isa", "cores", "machine")}}
    send = lambda msg: out.write(json.dumps(msg) + "\n")
    send({"type": "ready", "env": env, "import_s": 0.0})
    template = {k: v for k, v in VALID["results"][0].items() if k not in PARENT_FIELDS}
    template["timing"] = {"inner_loops": 1}
    log = os.environ.get("FAKE_WORKER_LOG")  # a file: one line per sample block, with its start and end
    die_once = os.environ.get("FAKE_WORKER_DIE_ONCE")  # a marker file: the first worker dies when idle
    noisy = os.environ.get("FAKE_WORKER_NOISY")
    # FAKE_WORKER_UNAVAILABLE='{"flavor": "x"}': every case of that settings group is "unavailable"
    unavailable = json.loads(os.environ.get("FAKE_WORKER_UNAVAILABLE", "null")) == job["settings"]
    rng = random.Random(os.getpid())
    arrivals: dict[str, dict] = {}          # task id -> its per-request pattern
    while (cmd := read_command(sys.stdin)) is not None:
        kind = cmd["cmd"]
        if kind == "prepare":
            task = cmd["task"]
            if task.get("save_reference") and not unavailable:
                Path(task["save_reference"]).write_bytes(b"fake reference")
            if log:
                with open(log + ".prepare", "a") as fh:
                    fh.write(json.dumps({"pid": os.getpid(), "id": task["id"], "settings": job["settings"],
                                         "save_reference": task.get("save_reference"),
                                         "compare_with": task.get("compare_with")}) + "\n")
            if unavailable:
                send({"type": "prepared", "id": task["id"], "result": {
                    **copy.deepcopy(template), "status": "unavailable", "error": "fake: not in this TensorFlow",
                    "timing": None, "first_call_s": None, "warmup": None, "output": None}})
                continue
            if "arrival" in task:
                arrivals[task["id"]] = task["arrival"]
            send({"type": "prepared", "id": cmd["task"]["id"], "result": copy.deepcopy(template)})
        elif kind == "sample":
            t0 = time.monotonic()
            time.sleep(delay)
            if log:
                with open(log, "a") as fh:
                    fh.write(f"{os.getpid()} {job['settings']} {cmd['id']} {t0} {time.monotonic()}\n")
                with open(log + ".warm", "a") as fh:
                    fh.write(f"{os.getpid()} {int(bool(cmd.get('warm')))}\n")
            spread = rng.uniform(0.5, 1.5) if noisy and cmd["id"].endswith(noisy) else 1.0
            arrival = arrivals.get(cmd["id"])
            if arrival is None or cmd.get("back_to_back"):
                send({"type": "sample", "id": cmd["id"], "seconds": value * spread})
                continue
            if log and "schedule" in cmd:
                with open(log + ".schedule", "a") as fh:
                    fh.write(json.dumps({"id": cmd["id"], "schedule": cmd["schedule"]}) + "\n")
            latencies = [value * spread * (i + 1) for i in range(arrival["requests"])]
            send({"type": "sample", "id": cmd["id"], "seconds": sorted(latencies)[len(latencies) // 2],
                  "latencies": latencies})
        elif kind == "release":
            send({"type": "released", "id": cmd["id"]})
            if die_once and not os.path.exists(die_once):
                Path(die_once).touch()
                out.flush()
                os._exit(3)  # between two commands: after a case was done with, before the next
        else:
            send({"type": "breakdown_failed", "id": cmd["task"]["id"], "error": "fake worker"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
