"""The "Faults we test" table, generated from the tests so that no row exists without a test.

A fault test says what it tries in its docstring, three lines starting with ``Fault:``,
``Happens:`` and ``Kept:``, and optionally ``Also:`` with the names of other tests of its
file that check the same row; the tests are read with :mod:`ast` (never imported, so
building the site needs neither pytest nor TensorFlow). An ``Also:`` test that does not
exist is an error, which fails ``mkdocs build --strict``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import TfperfError

FIELDS = ("Fault", "Happens", "Kept")
PLACEHOLDER_RE = re.compile(r"^[ \t]*<!--\s*faults:table\s*-->[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class FaultRow:
    fault: str
    happens: str
    kept: str
    tests: tuple[str, ...]          # "tests/<file>.py::<function>"


class FaultsError(TfperfError, ValueError):
    """A row whose test is missing, or a fault docstring without its three lines.
    (Still a ValueError, as it was before it joined the one root.)"""


def _fields(doc: str) -> dict[str, str] | None:
    """The Fault/Happens/Kept lines of a docstring, or None when it is not a fault test."""
    out: dict[str, str] = {}
    current: str | None = None
    for raw in doc.strip().splitlines():
        line = raw.strip()
        m = re.match(r"^(Fault|Happens|Kept|Also):\s*(.*)$", line)
        if m:
            current = m.group(1)
            out[current] = m.group(2)
        elif current and line:
            out[current] += " " + line
        elif not line:
            current = None
    return out if "Fault" in out else None


def test_functions(path: Path) -> dict[str, str]:
    """Test function name -> docstring ("" when none) of one test file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return {n.name: ast.get_docstring(n) or "" for n in tree.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test_")}


def collect(root: str | Path) -> list[FaultRow]:
    """Every fault row: from the docstrings of ``tests/test_*.py`` under ``root`` (the
    repository), then the referenced ones. Raises :class:`FaultsError` for a fault docstring
    without all three lines or a referenced test that does not exist."""
    root = Path(root)
    rows: list[FaultRow] = []
    known: set[str] = set()
    for path in sorted((root / "tests").glob("test_*.py")):
        rel = path.relative_to(root).as_posix()
        for name, doc in test_functions(path).items():
            known.add(f"{rel}::{name}")
            fields = _fields(doc)
            if fields is None:
                continue
            missing = [f for f in FIELDS if not fields.get(f)]
            if missing:
                raise FaultsError(f"{rel}::{name}: fault docstring lacks {', '.join(f + ':' for f in missing)}")
            fault, happens, kept = (_sentence(fields[f]) for f in FIELDS)
            also = tuple(f"{rel}::{t}" for t in fields.get("Also", "").replace(",", " ").split())
            rows.append(FaultRow(fault, happens, kept, (f"{rel}::{name}", *also)))
    for row in rows:
        for test in row.tests[1:]:
            if test not in known:
                raise FaultsError(f"{row.tests[0]}: its Also: names {test}, which does not exist")
    return rows


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _cell(text: str) -> str:
    """Markdown table cell text: no HTML from the docstring, no column breaks."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("|", "\\|").replace("\n", " "))


def markdown_table(rows: list[FaultRow]) -> str:
    lines = ["| What was tried | What happened | What was kept | Test |", "|---|---|---|---|"]
    for r in rows:
        tests = "<br>".join(f"`{_cell(t)}`" for t in r.tests)
        lines.append(f"| {_cell(r.fault)} | {_cell(r.happens)} | {_cell(r.kept)} | {tests} |")
    return "\n".join(lines) + "\n"


def fill(markdown: str, root: str | Path) -> str:
    """Replace the ``<!-- faults:table -->`` placeholder with the generated table."""
    if not PLACEHOLDER_RE.search(markdown):
        return markdown
    # A class for the layout (docs/assets/tfperf.css: fixed column widths, test ids that
    # wrap); md_in_html renders the Markdown table inside the div.
    table = f'<div class="tfperf-faults" markdown>\n\n{markdown_table(collect(root))}\n</div>\n'
    return PLACEHOLDER_RE.sub(lambda _: table, markdown)
