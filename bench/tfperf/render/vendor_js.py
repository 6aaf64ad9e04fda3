"""The chart libraries (Vega, Vega-Lite, vega-embed), vendored once in the package under
``vendor/`` (``scripts/vendor_js.sh`` writes them, each with its licence), and our own
``name_charts.js``, which names a drawn chart for a screen reader: the site serves them from
``assets/`` (:mod:`.mkdocs_hook`), and ``tfperf advise`` inlines them in its page
(:mod:`.advise_html`), so that an installed copy without the repository draws charts too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..errors import TfperfError

# In load order; docs/assets/tfperf.js names the same folders (its LIBS): change both with the versions.
LIBS = ("vega-6.2.0/vega.min.js", "vega-lite-6.4.1/vega-lite.min.js", "vega-embed-7.0.2/vega-embed.min.js")
VENDOR = Path(__file__).resolve().with_name("vendor")
NAME_CHARTS = Path(__file__).resolve().with_name("name_charts.js")     # tfperfNameChart(el)


def vendor_files(folder: Path = VENDOR) -> Iterator[tuple[str, Path]]:
    """Every vendored file (libraries, licences, VERSIONS) as (path under the folder, file)."""
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            yield path.relative_to(folder).as_posix(), path


def chart_scripts(folder: Path = VENDOR, name_charts: Path = NAME_CHARTS) -> list[str]:
    """The code a page inlines to draw its charts, each ready for a <script>: the chart
    libraries, then ``name_charts.js``; or a :class:`TfperfError` naming the first file that
    cannot be read."""
    out = []
    for path in [*(folder / name for name in LIBS), name_charts]:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise TfperfError(f"{path}: the chart library cannot be read ({exc.strerror or exc}); the page is "
                              "written without charts") from None
        out.append(text.replace("</script", "<\\/script"))
    return out
