"""Lighthouse on the built site, served with compression as GitHub Pages serves it.

    python scripts/lighthouse.py [SITE] [--page PATH ...] [--runs N] [--form mobile|desktop] [--out DIR]

Serves SITE (the output of ``mkdocs build``, default ``site``) on 127.0.0.1 with gzip for
text types (``Content-Encoding: gzip`` and ``Cache-Control: max-age=600``, as GitHub
Pages answers), and runs Lighthouse (npm, installed on first use into
``~/.cache/tfperf-lighthouse/<version>``, outside the repository) in headless Debian
Chromium (``CHROME_PATH=/usr/bin/chromium``) on the home page and on the longest topic
page (the most HTML elements; or the pages given with ``--page``), with mobile emulation
(Lighthouse's default) and ``--preset=desktop``, for the performance and accessibility
categories. Each page and form factor is run N times (default 1) and the median run kept.

Prints the scores with total blocking time, largest contentful paint, time to interactive
and DOM size, then the costliest opportunities and diagnostics of the mobile runs and any
accessibility audit that failed. The reports go to OUT (default
``test-artifacts/lighthouse``, git-ignored). Exits 1 if a page's mobile performance is
below 90 or its accessibility below 98, so it can be used as a check; 2 if Lighthouse
could not run. A script and not a test: Lighthouse takes a minute a run and its
performance score moves by several points between runs on a busy machine.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
LIGHTHOUSE = "12.8.2"       # 13 needs Node 22; Debian's Node is 20
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tfperf-lighthouse" / LIGHTHOUSE
CHROMIUM = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage"
MIN_PERFORMANCE = 90        # mobile
MIN_ACCESSIBILITY = 98      # mobile and desktop
FORMS = {"mobile": [], "desktop": ["--preset=desktop"]}
METRICS = (("TBT", "total-blocking-time", "ms"), ("LCP", "largest-contentful-paint", "ms"),
           ("TTI", "interactive", "ms"), ("FCP", "first-contentful-paint", "ms"),
           ("DOM", "dom-size", "elements"))
# What GitHub Pages compresses (text types; images and fonts go as they are).
COMPRESSED = re.compile(r"^(text/|application/(javascript|json|xml|manifest\+json)|image/svg\+xml)")
# What the diagnostics measure, named beside the opportunities (those with savings in ms).
DIAGNOSTICS = ("mainthread-work-breakdown", "bootup-time", "dom-size", "long-tasks", "total-byte-weight")


class _Pages(http.server.SimpleHTTPRequestHandler):
    """Static files, gzip-compressed for text types when the client accepts it."""

    cache: ClassVar[dict[Path, bytes]] = {}

    def log_message(self, *args: object) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=600")
        super().end_headers()

    def send_head(self) -> Any:
        fs = Path(self.translate_path(self.path))
        if fs.is_dir():
            if not urlsplit(self.path).path.endswith("/"):
                return super().send_head()         # the redirect to the address with a slash
            fs = fs / "index.html"
        ctype = self.guess_type(str(fs))
        if not fs.is_file() or not COMPRESSED.match(ctype) or "gzip" not in self.headers.get("Accept-Encoding", ""):
            return super().send_head()
        body = self.cache.get(fs)
        if body is None:
            body = self.cache[fs] = gzip.compress(fs.read_bytes(), compresslevel=6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Pages, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def install() -> Path:
    """Lighthouse's command, installed from npm into the cache on first use."""
    cli = CACHE / "node_modules" / "lighthouse" / "cli" / "index.js"
    pkg = CACHE / "node_modules" / "lighthouse" / "package.json"
    if pkg.is_file() and json.loads(pkg.read_text(encoding="utf-8")).get("version") == LIGHTHOUSE:
        return cli
    if shutil.which("npm") is None:
        raise SystemExit("lighthouse.py: npm is not installed (Node 18.16 or later with npm)")
    CACHE.mkdir(parents=True, exist_ok=True)
    print(f"lighthouse.py: installing lighthouse {LIGHTHOUSE} into {CACHE}", file=sys.stderr)
    subprocess.run(["npm", "install", "--prefix", str(CACHE), "--no-audit", "--no-fund", "--save-exact",
                    f"lighthouse@{LIGHTHOUSE}"], check=True, stdout=subprocess.DEVNULL)
    return cli


def element_count(page: Path) -> int:
    return len(re.findall(r"<[a-zA-Z]", page.read_text(encoding="utf-8")))


def longest_topic(site: Path) -> str:
    topics = sorted((site / "topics").glob("*/index.html"))
    if not topics:
        raise SystemExit(f"lighthouse.py: no topic page under {site}/topics/")
    counts = {p.parent.name: element_count(p) for p in topics}
    print("topic pages by HTML elements: " + ", ".join(f"{t} {n}" for t, n in
                                                       sorted(counts.items(), key=lambda kv: -kv[1])))
    return f"topics/{max(counts, key=lambda t: counts[t])}/"


def run(cli: Path, url: str, form: str, out: Path) -> dict[str, Any]:
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = ["node", str(cli), url, "--output=json", f"--output-path={out}", "--quiet",
           "--only-categories=performance,accessibility", f"--chrome-flags={CHROME_FLAGS}", *FORMS[form]]
    proc = subprocess.run(cmd, env={**os.environ, "CHROME_PATH": CHROMIUM}, capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0 or not out.is_file():
        raise RuntimeError(f"lighthouse failed on {url} ({form}): {proc.stderr.strip()[-2000:]}")
    report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    if report.get("runtimeError"):
        raise RuntimeError(f"lighthouse on {url} ({form}): {report['runtimeError'].get('message')}")
    return report


def score(report: dict[str, Any], category: str) -> int | None:
    s = report["categories"][category]["score"]
    return None if s is None else round(s * 100)


def summary(report: dict[str, Any]) -> dict[str, Any]:
    audits = report["audits"]
    row: dict[str, Any] = {"performance": score(report, "performance"),
                           "accessibility": score(report, "accessibility")}
    for name, audit, _ in METRICS:
        row[name] = audits.get(audit, {}).get("numericValue")
    return row


def median_run(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """The run whose performance score is the median (Lighthouse's own advice for noise)."""
    ordered = sorted(reports, key=lambda r: score(r, "performance") or 0)
    return ordered[(len(ordered) - 1) // 2]


def _saving(audit: dict[str, Any]) -> float:
    """An opportunity's estimated saving in ms (its largest on a timing metric)."""
    savings = audit.get("metricSavings") or {}
    return float(max([(audit.get("details") or {}).get("overallSavingsMs") or 0,
                      *(savings.get(m) or 0 for m in ("FCP", "LCP", "TBT", "INP"))]))


def costs(report: dict[str, Any], top: int = 6) -> list[str]:
    """The costliest opportunities (by estimated saving) and what the diagnostics measure."""
    audits = report["audits"]
    opportunities = sorted((a for a in audits.values()
                            if (a.get("details") or {}).get("type") == "opportunity" and _saving(a) > 0
                            and (a.get("score") is None or a["score"] < 0.9)),
                           key=_saving, reverse=True)
    lines = []
    for a in opportunities[:top]:
        lines.append(f"opportunity  {a['id']}: {a['title']} — {a.get('displayValue', '')} (about {_saving(a):.0f} ms)")
        lines += [f"               {_where(item)}" for item in _items(a, "wastedMs")]
    for key in DIAGNOSTICS:
        a = audits.get(key)
        if a and a.get("displayValue"):
            mark = "" if a.get("score") is None else f" (score {a['score']:.2f})"
            lines.append(f"diagnostic   {key}: {a['title']} — {a['displayValue']}{mark}")
            if key in ("mainthread-work-breakdown", "bootup-time"):
                lines += [f"               {_where(item)}" for item in _items(a, "duration" if key.startswith("main")
                                                                               else "total")]
    return lines


def _items(audit: dict[str, Any], by: str, top: int = 4) -> list[dict[str, Any]]:
    items = [i for i in (audit.get("details") or {}).get("items") or [] if isinstance(i.get(by), (int, float))]
    return [{**i, "_ms": i[by]} for i in sorted(items, key=lambda i: -i[by])[:top]]


def _where(item: dict[str, Any]) -> str:
    what = str(item.get("url") or item.get("groupLabel") or item.get("group") or "?")
    if "://" in what:
        what = urlsplit(what).path or what          # the page's own files, by their path
    return f"{what}: {item['_ms']:.0f} ms"


def failed_accessibility(report: dict[str, Any]) -> list[str]:
    audits = report["audits"]
    out = []
    for ref in report["categories"]["accessibility"]["auditRefs"]:
        a = audits.get(ref["id"], {})
        if ref.get("weight", 0) > 0 and a.get("score") is not None and a["score"] < 1:
            items = len((a.get("details") or {}).get("items") or [])
            out.append(f"accessibility {a['id']}: {a['title']} ({items} element{'s' if items != 1 else ''})")
    return out


def fmt(name: str, value: Any, unit: str) -> str:
    if value is None:
        return "–"
    if unit == "ms":
        return f"{value / 1000:.1f} s" if value >= 1000 else f"{value:.0f} ms"
    return f"{value:,.0f}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("site", type=Path, nargs="?", default=ROOT / "site")
    p.add_argument("--page", action="append", help="a page to audit, e.g. topics/xla_jit/ (repeatable; "
                   "default: home and the longest topic page)")
    p.add_argument("--runs", type=int, default=1, help="runs per page and form factor; the median is kept")
    p.add_argument("--form", choices=list(FORMS), action="append",
                   help="a form factor to run (repeatable; default: both)")
    p.add_argument("--out", type=Path, default=ROOT / "test-artifacts" / "lighthouse")
    args = p.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"lighthouse.py: {args.site} holds no built site (run `mkdocs build --strict` first)", file=sys.stderr)
        return 2
    if not Path(CHROMIUM).is_file():
        print(f"lighthouse.py: no Chromium at {CHROMIUM} (apt-get install chromium, or set CHROME_PATH)",
              file=sys.stderr)
        return 2
    pages = args.page or ["", longest_topic(args.site)]
    cli = install()
    httpd, base = serve(args.site)
    rows: list[tuple[str, str, dict[str, Any]]] = []
    notes: list[str] = []
    try:
        for page in pages:
            for form in args.form or list(FORMS):
                name = (page.strip("/").replace("/", "_") or "home") + f"-{form}"
                reports = [run(cli, base + page, form, args.out / f"{name}-{i}.json") for i in range(args.runs)]
                best = median_run(reports)
                rows.append((page or "/", form, summary(best)))
                print(f"  {page or '/'} {form}: performance {score(best, 'performance')}, "
                      f"accessibility {score(best, 'accessibility')}", file=sys.stderr, flush=True)
                if form == "mobile":
                    notes += [f"{page or '/'} ({form}):"] + [f"  {line}" for line in costs(best)]
                notes += [f"  {line} [{page or '/'} {form}]" for line in failed_accessibility(best)]
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        print(f"lighthouse.py: {exc}", file=sys.stderr)
        return 2
    finally:
        httpd.shutdown()

    head = ["page", "form", "perf", "a11y", *(m[0] for m in METRICS)]
    table = [head] + [[page, form, str(r["performance"]), str(r["accessibility"]),
                       *(fmt(n, r[n], u) for n, _, u in METRICS)] for page, form, r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    print(f"Lighthouse {LIGHTHOUSE}, {args.runs} run(s) each (median), served gzip-compressed from {args.site}")
    for row in table:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    print()
    print("\n".join(notes))
    bad = [f"{page} {form}: performance {r['performance']} < {MIN_PERFORMANCE}" for page, form, r in rows
           if form == "mobile" and (r["performance"] or 0) < MIN_PERFORMANCE]
    bad += [f"{page} {form}: accessibility {r['accessibility']} < {MIN_ACCESSIBILITY}" for page, form, r in rows
            if (r["accessibility"] or 0) < MIN_ACCESSIBILITY]
    if bad:
        print("\nbelow the bar:\n  " + "\n  ".join(bad))
        return 1
    print(f"\nevery page: mobile performance ≥ {MIN_PERFORMANCE}, accessibility ≥ {MIN_ACCESSIBILITY}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
