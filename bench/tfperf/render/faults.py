"""The "Faults we test" table, generated from the tests so that no row exists without a test.

A fault test says what it tries in its docstring, three lines starting with ``Fault:``,
``Happens:`` and ``Kept:``; the tests are read with :mod:`ast` (never imported, so
building the site needs neither pytest nor TensorFlow). Tests written before this page
(store, harness) are listed in :data:`REFERENCED` with the text of their row; a referenced
test that no longer exists is an error, which fails ``mkdocs build --strict``.
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


REFERENCED: tuple[FaultRow, ...] = (
    FaultRow("A snippet variant that raises, one that hangs past the case timeout, and one that kills its "
             "worker process (os._exit), in one group.",
             "Each is stored as a failed result (error with the traceback / timeout / crashed with the exit "
             "code); a fresh worker takes over the rest of the group.",
             "Every other case of the group, measured and checked; a second run re-runs nothing.",
             ("tests/test_harness_faults.py::test_failures_are_stored_and_the_rest_survives",)),
    FaultRow("SIGKILL of a process while it writes a results file (at random moments, and between writing "
             "the temporary file and renaming it).",
             "The write is a temporary file in the same folder, fsync, rename: the kill leaves at most a "
             "stray hidden temp file, never taken for results.",
             "The results file is always the complete old or the complete new version.",
             ("tests/test_store_faults.py::test_sigkill_during_writes_never_corrupts",
              "tests/test_store_faults.py::test_sigkill_after_temp_written_before_rename")),
    FaultRow("Results files that are malformed JSON, of an unknown schema version, with NaN, infinite, zero "
             "or negative times, a missing field, a wrong type, or names that try path traversal.",
             "Loading raises one error naming the file and the field (e.g. "
             "results[1].timing.summary.median: missing (required)).",
             "Loading a folder keeps every good file and lists the bad ones.",
             ("tests/test_store.py::test_bad_fixture_names_file_and_field",
              "tests/test_store.py::test_load_dir_keeps_good_files_despite_bad_ones")),
    FaultRow("A contributed or CI artifact that is malformed, merged together with valid ones.",
             "`tfperf merge` rejects it by file and field and exits 1.",
             "The valid artifacts are merged; a second merge changes no byte.",
             ("tests/test_store_merge.py::test_merge_into_two_runners_and_a_malformed_artifact",)),
    FaultRow("The same results file submitted twice (a duplicate contribution).",
             "The merge reports it as a duplicate: every record is already there.",
             "The published file is unchanged; a broken published file is never touched.",
             ("tests/test_store_merge.py::test_contribution_duplicate_recognised_and_target_never_touched_when_broken",)),
)


def _fields(doc: str) -> dict[str, str] | None:
    """The Fault/Happens/Kept lines of a docstring, or None when it is not a fault test."""
    out: dict[str, str] = {}
    current: str | None = None
    for raw in doc.strip().splitlines():
        line = raw.strip()
        m = re.match(r"^(Fault|Happens|Kept):\s*(.*)$", line)
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
            rows.append(FaultRow(fault, happens, kept, (f"{rel}::{name}",)))
    for row in REFERENCED:
        for test in row.tests:
            if test not in known:
                raise FaultsError(f"the faults page cites {test}, which does not exist")
        rows.append(row)
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
