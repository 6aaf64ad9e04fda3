"""``<!-- tfperf:failures -->`` on the Data page: every current result that failed, of every
topic. A topic page shows its own failures beside its figures, but a topic without a page
(a YAML added before its page, or a results file from a contributor's own topic) would
otherwise show them nowhere; so the list names each topic and links the ones with a page.
"""

from __future__ import annotations

from typing import Any

from ...analyse import error_line, failed_results
from ..page.context import STALE_HEAD, Context, Directive, provenance, stale_mark
from ..page.html import Markup, element, join, link, table


def block_failures(d: Directive, ctx: Context) -> Markup:
    failed = failed_results(ctx.ds.current)
    if not failed:
        return Markup("<p>No current result is a failure.</p>")
    rows: list[list[Any]] = []
    for m in failed:
        has_page = ctx.topic_pages is None or m.topic in ctx.topic_pages
        topic: Any = (link(f"{ctx.prefix}topics/{m.topic}/", m.topic) if has_page
                      else join([m.topic, " ", element("em", "(no page)")]))
        rows.append([topic, element("code", m.runner), element("code", m.case_id), error_line(m),
                     m.finished_at.date().isoformat(), stale_mark([m])])
    return Markup(table(["topic", "runner", "case", "what went wrong", "measured", STALE_HEAD], rows)
                  + provenance(ctx, failed))
