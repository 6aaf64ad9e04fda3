"""The "Faults we test" page is generated from the tests: every fault test has a row, every
row has a test, and a cited test that disappears is an error. The site's page shows the rows
in a reader's words; the maintainers' copy (docs/maintainers/faults.md) adds the tests and
is current (no TensorFlow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfperf.render.site import faults

ROOT = Path(__file__).resolve().parents[2]


def test_every_fault_test_has_a_row_and_every_row_a_test() -> None:
    rows = faults.collect(ROOT)
    cited = {t for r in rows for t in r.tests}
    for path in sorted((ROOT / "tests").rglob("test_faults_*.py")):
        if path.name == "test_faults_page.py":
            continue
        for name in faults.test_functions(path):
            node = f"{path.relative_to(ROOT).as_posix()}::{name}"
            assert node in cited, f"{path.name}::{name} has no Fault:/Happens:/Kept: docstring"
    for test in cited:
        file, name = test.split("::")
        assert name in faults.test_functions(ROOT / file), test
    assert all(r.fault and r.happens and r.kept for r in rows)
    # The list of faults, each present.
    text = " ".join(r.fault for r in rows)
    for needle in ("SIGINT", "SIGTERM", "SIGKILL", "same moment", "malformed JSON", "unknown schema version",
                   "NaN", "missing", "raises", "hangs", "kills its worker", "memory", "script", "path traversal",
                   "twice", "same topic", "another run on the same results file", "only failed results",
                   "has no page", "newer tfperf"):
        assert needle in text, needle


def test_missing_cited_test_or_incomplete_docstring_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(
        'def test_a():\n    """Fault: f.\n    Happens: h.\n    Kept: k.\n    Also: test_b, test_gone"""\n\n'
        'def test_b():\n    pass\n')
    with pytest.raises(faults.FaultsError, match="test_x.py::test_a: its Also: names tests/test_x.py::test_gone"):
        faults.collect(tmp_path)
    (tmp_path / "tests" / "test_x.py").write_text(
        'def test_a():\n    """Fault: f.\n    Happens: h.\n    Kept: k.\n    Also: test_b"""\n\ndef test_b():\n    pass\n')
    (row,) = faults.collect(tmp_path)
    assert row.tests == ("tests/test_x.py::test_a", "tests/test_x.py::test_b") and row.kept == "K."
    # A test of another file is named with its file.
    (tmp_path / "tests" / "test_y.py").write_text('def test_c():\n    pass\n')
    (tmp_path / "tests" / "test_x.py").write_text(
        'def test_a():\n    """Fault: f.\n    Happens: h.\n    Kept: k.\n    Also: test_y.py::test_c"""\n')
    (row,) = faults.collect(tmp_path)
    assert row.tests == ("tests/test_x.py::test_a", "tests/test_y.py::test_c")
    (tmp_path / "tests" / "test_x.py").write_text(
        'def test_a():\n    """Fault: f.\n    Happens: h.\n    Kept: k.\n    Also: test_y.py::test_gone"""\n')
    with pytest.raises(faults.FaultsError, match="its Also: names tests/test_y.py::test_gone"):
        faults.collect(tmp_path)
    (tmp_path / "tests" / "test_x.py").write_text('def test_a():\n    """Fault: something.\n    Happens: it."""\n')
    with pytest.raises(faults.FaultsError, match="lacks Kept:"):
        faults.collect(tmp_path)


def test_table_escapes_and_fills_only_the_placeholder(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(
        'def test_a():\n    """Fault: <script>alert(1)</script> | pipe.\n    Happens: shown as text.\n'
        '    Kept: all."""\n\ndef test_plain():\n    """Not a fault test."""\n')
    page = "# Faults\n\n<!-- faults:table -->\n\nafter\n"
    out = faults.fill(page, tmp_path)
    assert "&lt;script&gt;alert(1)&lt;/script&gt; \\| pipe." in out and "<script>" not in out
    # The site's table is the reader's: what was tried, happened and kept, never the test.
    assert out.count("\n| ") == 2 and "test_x" not in out and out.endswith("after\n")
    assert "| What was tried | What happened | What was kept |\n" in out
    assert faults.fill("no placeholder\n", tmp_path) == "no placeholder\n"
    # The maintainers' copy has the same rows with their tests.
    page = faults.maintainers_page(tmp_path)
    assert "| Shown as text. | All. | `tests/test_x.py::test_a` |" in page and "&lt;script&gt;" in page


def test_the_maintainers_copy_is_current(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    committed = ROOT / faults.MAINTAINERS_PAGE
    assert committed.read_text(encoding="utf-8") == faults.maintainers_page(ROOT), (
        f"{faults.MAINTAINERS_PAGE} is stale: run python -m tfperf.render.site.faults")
    # The command writes it, and --check says whether it is current.
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text('def test_a():\n    """Fault: f.\n    Happens: h.\n    Kept: k."""\n')
    assert faults.main(["--root", str(tmp_path), "--check"]) == 1
    assert faults.main(["--root", str(tmp_path)]) == 0
    assert "`tests/test_x.py::test_a`" in (tmp_path / faults.MAINTAINERS_PAGE).read_text(encoding="utf-8")
    assert faults.main(["--root", str(tmp_path), "--check"]) == 0
    assert "stale" in capsys.readouterr().out


def test_a_code_span_shows_its_angle_brackets_once() -> None:
    """Outside a code span < and & are escaped; inside, Markdown shows them as they are (escaped
    twice, the page read "&lt;file&gt;.claims")."""
    from tfperf.render.site.faults import _cell

    assert _cell("one `<file>.claims: a & b` <x> & y | z") == "one `<file>.claims: a & b` &lt;x&gt; &amp; y \\| z"
