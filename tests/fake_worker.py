"""A stand-in for ``python -m tfperf.measure.worker`` that speaks the worker's pipe protocol
without TensorFlow, for orchestrator tests that need many processes at once.

Used as ``RunOptions(python=<script that runs this file>)``: the orchestrator starts
``<python> -m tfperf.measure.worker FD``; this file ignores "-m ..." and takes FD. Every
case "measures" a few fixed samples after ``FAKE_WORKER_DELAY_S`` seconds.
"""

from __future__ import annotations

import copy
import json
import os
import sys
import time
from pathlib import Path

from tfperf.measure.worker import read_job, wait_turn  # the real protocol (no TensorFlow import)

VALID = json.loads((Path(__file__).parent / "fixtures" / "results" / "valid.json").read_text(encoding="utf-8"))
PARENT_FIELDS = {"case_id", "topic", "params", "settings", "variant", "is_reference", "is_default", "key",
                 "key_hash", "env_id"}


def main() -> int:
    out = os.fdopen(int(sys.argv[-1]), "w", buffering=1, encoding="utf-8")
    job = read_job(sys.stdin)
    delay = float(os.environ.get("FAKE_WORKER_DELAY_S", "0.01"))
    env = {**copy.deepcopy(next(iter(VALID["environments"].values()))), "runner": job["runner"],
           "settings": job["settings"]}
    send = lambda msg: out.write(json.dumps(msg) + "\n")  # noqa: E731
    send({"type": "ready", "env": env, "import_s": 0.0})
    template = {k: v for k, v in VALID["results"][0].items() if k not in PARENT_FIELDS}
    die_once = os.environ.get("FAKE_WORKER_DIE_ONCE")  # a marker file: the first worker dies
    for i, task in enumerate(job["tasks"]):
        if die_once and i == 1 and not os.path.exists(die_once):
            Path(die_once).touch()
            out.flush()
            os._exit(3)  # between two cases: after one result, before the next start
        wait_turn(sys.stdin)
        send({"type": "start", "id": task["id"]})
        time.sleep(delay)
        send({"type": "result", "id": task["id"], "result": copy.deepcopy(template)})
    send({"type": "done"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
