"""The chart libraries (Vega, Vega-Lite, vega-embed), vendored once in the package under
``vendor/`` (``scripts/vendor_js.sh`` writes them, each with its licence): the site serves
them from ``assets/vendor/`` (:mod:`.mkdocs_hook`), and ``tfperf advise`` inlines them in its
page (:mod:`.advise_html`), so that an installed copy without the repository draws charts too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..errors import TfperfError

# In load order; docs/assets/tfperf.js names the same folders (its LIBS): change both with the versions.
LIBS = ("vega-6.2.0/vega.min.js", "vega-lite-6.4.1/vega-lite.min.js", "vega-embed-7.0.2/vega-embed.min.js")
VENDOR = Path(__file__).resolve().with_name("vendor")


def vendor_files(folder: Path = VENDOR) -> Iterator[tuple[str, Path]]:
    """Every vendored file (libraries, licences, VERSIONS) as (path under the folder, file)."""
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            yield path.relative_to(folder).as_posix(), path


def vendored_scripts(folder: Path = VENDOR) -> list[str]:
    """The chart libraries' code, ready to inline in a <script>, or a :class:`TfperfError`
    naming the first one that cannot be read."""
    out = []
    for name in LIBS:
        path = folder / name
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise TfperfError(f"{path}: the chart library cannot be read ({exc.strerror or exc}); the page is "
                              "written without charts") from None
        out.append(text.replace("</script", "<\\/script"))
    return out
