"""Print each topic's questions and the answers its page opens with, from the committed
results (``tfperf answers``; the same analysis as the site's first screen).

    python scripts/answers.py [--topic xla_jit] [--data data]
"""

from __future__ import annotations

import sys

from tfperf.cli import main

if __name__ == "__main__":
    sys.exit(main(["answers", *sys.argv[1:]]))
