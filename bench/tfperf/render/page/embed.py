"""A chart as HTML: a div that the vendored vega-embed fills, the spec beside it as JSON,
and a static SVG (vl-convert) inside <noscript> for readers without JavaScript. On a site
page the spec and its rows are files beside the page, fetched when the chart nears the
screen (a topic page carried ~0.9 MB of them), each row set once however many charts draw it.

Several charts of one page usually draw the same rows (latency, speedup, first call); the
rows are written once per page in their own ``<script type="application/json">`` and the
spec names them in ``usermeta.tfperf_rows`` (docs/assets/tfperf.js puts them back), so a
page carries each dataset once. Floats are kept to 6 significant digits.

SVG rendering is the slow part of a build, so SVGs are cached on disk by spec hash.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from .html import Markup, h, script_json

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
                cached.parent.mkdir(parents=True, exist_ok=True)
                cached.write_text(svg, encoding="utf-8")
        self.produced[name] = svg
        return name

    def write_all(self, dest: Path) -> None:
        dest.mkdir(parents=True, exist_ok=True)
        for name, svg in self.produced.items():
            (dest / name).write_text(svg, encoding="utf-8")


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
    rows in the spec itself. ``store``: where a page's fetched files go (render/fragments.py);
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
