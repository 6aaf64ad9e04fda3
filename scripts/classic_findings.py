"""The classic findings, then and now: every figure the sources reported (quoted in
``docs/sources/<topic>.yaml``) beside today's verdict on the claim that tests it, from the
committed data, as a Markdown table (for notes and reviews; the pages show the same in
each topic's "Do this" box).

Today's side per claim: the verdict counts over scenarios (holds / refuted / unclear),
the range of the measured speedup in the claim's direction with the 95% CI of its two
ends, and the smallest effect the scenarios could have detected (median).

    .venv/bin/python scripts/classic_findings.py [--data data] [--runner RUNNER]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from tfperf.analyse import analyse, load_sources


def _x(v: float) -> str:
    return f"{v:.2f}×"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default=str(ROOT / "data"))
    p.add_argument("--snippets", default=str(ROOT / "snippets"))
    p.add_argument("--sources", default=str(ROOT / "docs" / "sources"))
    p.add_argument("--runner", default=None, help="one runner only (default: all)")
    args = p.parse_args(argv)
    ds = analyse(Path(args.data) / "results", args.snippets)
    claims = {t: {str(c.get("id")) for c in ds.claims_of(t)} for t in ds.topics}
    sources, errors = load_sources(args.sources, claims)
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    print("| topic | source | then | claim | today: verdict, and the findings over scenarios | speedup (CI of the ends) "
          "| detectable (median) |")
    print("|---|---|---|---|---|---|---|")
    for topic in ds.topics:
        for fig in sources.get(topic, []):
            res = ds.claim_result(topic, fig.claim)
            checks = [c for c in (res.checks if res else [])
                      if (c.has_data or c.wrong_output) and (args.runner is None or c.scenario.runner == args.runner)]
            counts = Counter(str(c.finding) for c in checks if c.has_data)
            wrong = sum(1 for c in checks if c.wrong_output)
            runners = [r for r in (res.runners_with_data if res else []) if args.runner in (None, r)]
            said = "; ".join(f"{r}: {res.summary_text(r)}" for r in runners) if res else ""
            verdict = (f"{res.verdict_text() if res else 'no results'} ({said}); "
                       + ", ".join(f"{k} {n}" for k, n in counts.items())
                       + (f", wrong output {wrong}" if wrong else "") + f" of {len(checks)}") if checks \
                else "no results yet"
            checks = [c for c in checks if c.ratio is not None and c.has_data]
            if checks:
                lo = min(checks, key=lambda c: c.ratio.point)      # type: ignore[union-attr]
                hi = max(checks, key=lambda c: c.ratio.point)      # type: ignore[union-attr]
                assert lo.ratio is not None and hi.ratio is not None
                rng = (f"{_x(lo.ratio.point)} [{_x(lo.ratio.low)}, {_x(lo.ratio.high)}] to "
                       f"{_x(hi.ratio.point)} [{_x(hi.ratio.low)}, {_x(hi.ratio.high)}]")
                det = [c.detectable for c in checks if c.detectable is not None]
                detect = f"±{statistics.median(det):.1%}" if det else "–"
            else:
                rng = detect = "–"
            print(f"| {topic} | {fig.origin.date}, {fig.origin.publisher or fig.origin.title} | {fig.then} "
                  f"| {fig.claim} | {verdict} | {rng} | {detect} |")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
