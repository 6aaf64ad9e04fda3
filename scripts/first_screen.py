"""How well the estimate of an answer's height on a phone matches the browser, for
calibrating :mod:`tfperf.render.blocks.first_screen` after a change to the pages' CSS or
fonts.

    python scripts/first_screen.py site/ [--width 400] [--height 800]

Serves SITE (the output of ``mkdocs build``), opens each topic page in Debian's Chromium at
400 × 800 px and prints, per question: where its section starts and ends on the page, its
height, the estimate (:func:`~tfperf.render.blocks.first_screen.phone_px` of the section's
HTML) and their ratio; then, for the first question of each page, whether it ends on the
first screen, and the largest estimate that did not fit and the smallest space above a
first question (what :data:`~tfperf.render.blocks.first_screen.FIRST_SCREEN_PX` must stay
between).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import statistics
import threading
from pathlib import Path

from screenshots import CHROMIUM, _Quiet

from tfperf.render.blocks.first_screen import FIRST_SCREEN_PX, phone_px


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("site", type=Path)
    p.add_argument("--width", type=int, default=400)
    p.add_argument("--height", type=int, default=800)
    args = p.parse_args(argv)
    topics = sorted(t.name for t in (args.site / "topics").glob("*/") if (t / "index.html").exists())
    from playwright.sync_api import sync_playwright

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(args.site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    ratios, tops = [], []
    print(f"{'question':48} {'top':>5} {'bottom':>6} {'height':>6} {'estimate':>8} {'ratio':>5}")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        page = browser.new_page(viewport={"width": args.width, "height": args.height})
        for topic in topics:
            page.goto(f"{base}topics/{topic}/", wait_until="load")
            sections = page.locator("section.tfperf-qa")
            for i in range(sections.count()):
                s = sections.nth(i)
                box = s.bounding_box()
                if box is None:
                    continue
                estimate = phone_px(s.inner_html())
                ratios.append(box["height"] / estimate)
                first = " (first)" if i == 0 else ""
                if i == 0:
                    tops.append(box["y"])
                    fits = "on the first screen" if box["y"] + box["height"] <= args.height else "PAST the first screen"
                    first = f" {fits}"
                name = f"{topic}#{s.get_attribute('id')}"[:48]
                print(f"{name:48} {box['y']:5.0f} {box['y'] + box['height']:6.0f} {box['height']:6.0f} "
                      f"{estimate:8.0f} {box['height'] / estimate:5.2f}{first}")
        browser.close()
    httpd.shutdown()
    if ratios:
        print(f"\nheight / estimate over {len(ratios)} sections: median {statistics.median(ratios):.2f}, "
              f"min {min(ratios):.2f}, max {max(ratios):.2f} (above 1: the estimate is short)")
        print(f"a first question starts at {min(tops):.0f}-{max(tops):.0f} px; FIRST_SCREEN_PX = {FIRST_SCREEN_PX}, "
              f"so the estimate may reach {args.height - max(tops):.0f} px on the page with the lowest start")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
