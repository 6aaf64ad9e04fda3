"""A chart as HTML: a div that the vendored vega-embed fills, the spec beside it as JSON,
and a static SVG (vl-convert) inside <noscript> for readers without JavaScript.

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


def chart_html(chart_id: str, spec: dict[str, Any], svg_url: str | None, alt_text: str) -> Markup:
    noscript = (f'<noscript><img class="tfperf-svg" src="{h(svg_url)}" alt="{h(alt_text)}"></noscript>'
                if svg_url else "")
    return Markup(
        f'<div class="tfperf-chart" id="{h(chart_id)}" data-tfperf-chart="{h(chart_id)}" '
        f'role="figure" aria-label="{h(alt_text)}"></div>'
        f'<script type="application/json" id="{h(chart_id)}-spec">{script_json(spec)}</script>'
        f"{noscript}")
