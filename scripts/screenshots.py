"""Screenshots of the built site as a reader sees it, for reviewing a change by eye.

    python scripts/screenshots.py site/ OUT_DIR [PAGE ...] [--widths 400 1400] [--full]

Serves SITE (the output of ``mkdocs build``) on localhost, opens each page (a path such as
``topics/xla_jit/``, or ``#across-tensorflow-versions`` for a section of home, shown from its
heading; default: home and every topic page) in Debian's Chromium at each width,
and saves ``OUT_DIR/<page>-<width>.png``: the first screen (the viewport, 800 px tall at
400 px wide, 900 px at 1400), or the whole page with ``--full``.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import threading
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
HEIGHTS = {400: 800}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("site", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("pages", nargs="*")
    p.add_argument("--widths", nargs="+", type=int, default=[400, 1400])
    p.add_argument("--full", action="store_true", help="the whole page, not only the first screen")
    args = p.parse_args(argv)
    pages = args.pages or [""] + [f"topics/{t.stem}/" for t in sorted((args.site / "topics").glob("*/"))
                                  if (t / "index.html").exists()]
    from playwright.sync_api import sync_playwright

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                            functools.partial(_Quiet, directory=str(args.site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--no-first-run", "--disable-sync"])
        for width in args.widths:
            page = browser.new_page(viewport={"width": width, "height": HEIGHTS.get(width, 900)})
            for rel in pages:
                page.goto(base + rel, wait_until="networkidle")
                name = (rel.strip("/").replace("/", "-").replace("#", "_") or "home") + f"-{width}.png"
                page.screenshot(path=str(args.out / name), full_page=args.full)
                print(args.out / name)
            page.close()
        browser.close()
    httpd.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
