"""``python -m tfperf.cli``: the ``tfperf`` command."""

import sys

from . import main

sys.exit(main())
