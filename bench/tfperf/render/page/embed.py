"""What a page loads beside itself: its charts, the libraries that draw them, and its long
parts, each fetched as the reader nears it.

Charts. A chart as HTML is a div that the vendored vega-embed fills, the spec beside it as
JSON, and a static SVG (vl-convert) inside <noscript> for readers without JavaScript. On a
site page the spec and its rows are files beside the page, fetched when the chart nears
the screen (a topic page carried ~0.9 MB of them), each row set once however many charts
draw it. Several charts of one page usually draw the same rows (latency, speedup, first
call); the rows are written once per page in their own ``<script type="application/json">``
and the spec names them in ``usermeta.tfperf_rows`` (docs/assets/tfperf.js puts them back),
so a page carries each dataset once. Floats are kept to 6 significant digits. SVG rendering
is the slow part of a build, so SVGs are cached on disk by spec hash.

The chart libraries (Vega, Vega-Lite, vega-embed) are vendored once in the package under
``render/vendor/`` (``scripts/vendor_js.sh`` writes them, each with its licence), beside our
own ``render/name_charts.js``, which names a drawn chart for a screen reader: the site
serves them from ``assets/`` (:mod:`tfperf.render.site.mkdocs_hook`), and ``tfperf advise``
inlines them in its page (:mod:`tfperf.render.advise`), so that an installed copy without
the repository draws charts too.

Long parts. A topic page held ~14,000 elements (every scenario of every claim in every
release, each claim's scenarios, the highlighted code), and a phone spent seconds styling
and laying them out before it answered a tap. A part longer than :data:`FETCH_ELEMENTS` is
written next to its page as a small HTML document, and the page keeps a link to it in its
place; docs/assets/tfperf.js fetches it and puts it in the link's place when the part comes
near the screen or its fold opens (``tfperfDrawAll()`` fetches every one). Without
JavaScript the link opens the part on its own. Headings and prose stay in the page, and so
in the search index.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...errors import ResultsWriteError, TfperfError
from ...store.files import publish
from .html import Markup, element, h, script_json

VL_VERSION = "6.4"   # vl-convert's Vega-Lite, matching the vendored vega-lite 6.4.1


class SvgCache:
    def __init__(self, cache_dir: str | Path | None) -> None:
        self.dir = Path(cache_dir) if cache_dir else None
        self.produced: dict[str, str] = {}    # file name -> svg text, written to the site at the end

    def svg_name(self, static_spec: dict[str, Any]) -> str:
        text = json.dumps(static_spec, sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(text.encode()).hexdigest()[:20]
        name = f"{digest}.svg"
        if name in self.produced:
            return name
        cached = self.dir / name if self.dir else None
        if cached and cached.is_file():
            svg = cached.read_text(encoding="utf-8")
        else:
            import vl_convert

            svg = vl_convert.vegalite_to_svg(static_spec, vl_version=VL_VERSION)
            if cached:
                _keep(cached, svg)
        self.produced[name] = svg
        return name

    def write_all(self, dest: Path) -> None:
        dest.mkdir(parents=True, exist_ok=True)
        for name, svg in self.produced.items():
            (dest / name).write_text(svg, encoding="utf-8")


def _keep(path: Path, svg: str) -> None:
    """Put ``svg`` in the cache as ``path`` whole or not at all (:func:`~tfperf.store.files.publish`),
    so a build reading the cache at the same time, or after a full disk, never reads half a
    drawing. A cache that cannot be written only costs the next build the drawing again."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        publish(path, svg.encode("utf-8"), sync=False)
    except (OSError, ResultsWriteError):
        pass


def _compact(v: Any) -> Any:
    if isinstance(v, float):
        return float(f"{v:.6g}")
    if isinstance(v, dict):
        return {k: _compact(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_compact(x) for x in v]
    return v


def _fetched_chart(chart_id: str, spec: dict[str, Any], svg_url: str | None, alt_text: str,
                   store: dict[str, str]) -> Markup:
    """The chart's spec and its rows as JSON files beside the page (``store``: file name ->
    text), fetched when the chart nears the screen; the page keeps its name and text
    alternative, and, without JavaScript, the drawing and a link to the data."""
    rows = (spec.get("datasets") or {}).get("rows")
    meta = dict(spec.get("usermeta", {}))
    data_name = None
    if rows is not None:
        text = json.dumps(_compact(rows), separators=(",", ":"))
        data_name = f"rows-{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
        store[data_name] = text
        spec = {**spec, "datasets": {"rows": []}}
        meta["tfperf_rows_src"] = data_name
    text = json.dumps(_compact({**spec, "usermeta": meta}), separators=(",", ":"))
    name = f"chart-{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
    store[name] = text
    img = f'<img class="tfperf-svg" src="{h(svg_url)}" alt="{h(alt_text)}">' if svg_url else ""
    data = f'<p><a href="{h(data_name)}">The chart\'s data (JSON)</a></p>' if data_name else ""
    return Markup(f'<div class="tfperf-chart" id="{h(chart_id)}" data-tfperf-chart="{h(chart_id)}" '
                  f'data-tfperf-spec="{h(name)}" role="figure" aria-label="{h(alt_text)}"></div>'
                  + (f"<noscript>{img}{data}</noscript>" if img or data else ""))


def chart_html(chart_id: str, spec: dict[str, Any], svg_url: str | None, alt_text: str,
               shared: set[str] | None = None, store: dict[str, str] | None = None) -> Markup:
    """``shared``: the ids of the row sets already on this page (updated); None embeds the
    rows in the spec itself. ``store``: where a page's fetched files go (the long parts, below);
    given, the spec and rows are written there instead of into the page."""
    if store is not None:
        return _fetched_chart(chart_id, spec, svg_url, alt_text, store)
    noscript = (f'<noscript><img class="tfperf-svg" src="{h(svg_url)}" alt="{h(alt_text)}"></noscript>'
                if svg_url else "")
    data_html = ""
    rows = (spec.get("datasets") or {}).get("rows")
    if shared is not None and rows is not None:
        rows = _compact(rows)
        text = script_json(rows)
        rid = hashlib.sha256(text.encode()).hexdigest()[:16]
        spec = {**spec, "datasets": {"rows": []}, "usermeta": {**spec.get("usermeta", {}), "tfperf_rows": rid}}
        if rid not in shared:
            shared.add(rid)
            data_html = f'<script type="application/json" id="tfperf-rows-{rid}">{text}</script>'
    return Markup(
        data_html +
        f'<div class="tfperf-chart" id="{h(chart_id)}" data-tfperf-chart="{h(chart_id)}" '
        f'role="figure" aria-label="{h(alt_text)}"></div>'
        f'<script type="application/json" id="{h(chart_id)}-spec">{script_json(spec)}</script>'
        f"{noscript}")


# -- the chart libraries ------------------------------------------------------------------

# In load order; docs/assets/tfperf.js names the same folders (its LIBS): change both with the versions.
LIBS = ("vega-6.2.0/vega.min.js", "vega-lite-6.4.1/vega-lite.min.js", "vega-embed-7.0.2/vega-embed.min.js")
VENDOR = Path(__file__).resolve().parents[1] / "vendor"
NAME_CHARTS = Path(__file__).resolve().parents[1] / "name_charts.js"     # tfperfNameChart(el)


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


# -- long parts ---------------------------------------------------------------------------

FETCH_ELEMENTS = 100          # a part of more elements than this is fetched (a table of ~12 rows)
CODE_ELEMENTS = 150           # a highlighted code block of more than this is fetched
_TAG = re.compile(r"<[a-zA-Z]")
# Material's highlighted code block (pymdownx.highlight): no <div> inside it
_CODE = re.compile(r'<div class="(?:language-[\w-]+ )?highlight">(?:(?!</div>).)*</pre></div>', re.DOTALL)


def elements(html: str) -> int:
    return len(_TAG.findall(html))


def _name(kind: str, body: str) -> str:
    return f"{kind}-{hashlib.sha256(body.encode()).hexdigest()[:12]}.html"


def fetch_placeholder(store: dict[str, str] | None, body: Markup, what: str, kind: str = "part",
                      lines: int = 0, least: int = FETCH_ELEMENTS) -> Markup:
    """``body`` itself when ``store`` is None or it has ``least`` elements or fewer; else
    its file name in ``store`` and, in the page, the element tfperf.js fills with it."""
    if store is None or elements(body) <= least:
        return body
    name = _name(kind, str(body))
    store[name] = str(body)
    style = f"min-height: {lines * 1.5 + 2:.0f}em" if lines else None
    return element("div", element("p", element("a", f"Show {what}", href=name), class_="tfperf-fetch-link"),
                   class_="tfperf-fetch", data_tfperf_src=name, style=style)


def fetch_code(html: str, store: dict[str, str] | None) -> str:
    """The page's long highlighted code blocks, each fetched as the reader nears it (a block
    of a few hundred lines is thousands of coloured spans)."""
    if store is None:
        return html

    def one(m: re.Match[str]) -> str:
        if elements(m.group(0)) <= CODE_ELEMENTS:
            return m.group(0)
        lines = m.group(0).count("\n") + 1
        return str(fetch_placeholder(store, Markup(m.group(0)), f"the code ({lines} lines)", "code", lines))

    return _CODE.sub(one, html)


def document(body: str, prefix: str) -> str:
    """A part as a document of its own: the page's styles, readable when opened by its link."""
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            "<meta name=\"robots\" content=\"noindex\"><title>Part of a tfperf page</title>"
            f"<link rel=\"stylesheet\" href=\"{h(prefix)}assets/tfperf.css\"></head>"
            f"<body><main class=\"md-typeset\" data-tfperf-part>{body}</main></body></html>\n")


def write_all(pages: dict[str, dict[str, str]], site_dir: Path) -> None:
    """Each page's parts, next to the page (page url -> file name -> HTML, or a chart's
    JSON as it is)."""
    for url, parts in pages.items():
        folder = url if url.endswith("/") or not url else url.rsplit("/", 1)[0] + "/" if "/" in url else ""
        prefix = "../" * folder.count("/")
        for name, body in parts.items():
            dest = site_dir / folder / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(body if name.endswith(".json") else document(body, prefix), encoding="utf-8")
