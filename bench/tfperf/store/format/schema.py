"""The results schema: its version, where the packaged JSON Schema lives, the names it allows."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any, Final

# The version this tfperf writes. Older files are migrated up to it (see migrate.py);
# newer files are refused with a message telling the user to upgrade.
SCHEMA_VERSION: Final = 2

# history: the smallest grid that decides each claim, run once per TensorFlow version (tfperf run --tf).
PROFILES = ("quick", "full", "history")

# Runner labels, profiles, topics and variants end up in file names and URLs: letters,
# digits and _ . + -, starting with a letter or digit, so "..", "a/b" or "" never pass.
# (fullmatch, not "$": "$" would let a trailing newline through.)
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")
NAME_RULE = "letters, digits and _ . + -, starting with a letter or digit, at most 64 characters"


def is_name(value: object) -> bool:
    return isinstance(value, str) and NAME_RE.fullmatch(value) is not None


def schema_path(version: int = SCHEMA_VERSION) -> Path:
    """The packaged JSON Schema file (the site's Data page publishes a copy)."""
    return Path(__file__).with_name(f"schema_v{version}.json")


@cache
def load_schema(version: int = SCHEMA_VERSION) -> dict[str, Any]:
    with schema_path(version).open(encoding="utf-8") as fh:
        schema: dict[str, Any] = json.load(fh)
    return schema
