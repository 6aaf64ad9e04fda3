"""Findings across TensorFlow releases, laid out (the analysis is
:mod:`tfperf.analyse.judge.version_verdicts` and :func:`tfperf.analyse.views.answers.versions_table`)::

    <!-- tfperf:trends TOPIC -->    a topic's "Across versions": per claim, a strip of its
                                    finding per release and a chart of its speedup per release
    <!-- tfperf:changes TOPIC -->   near the top of a topic page: the findings that changed, and
                                    since which release (nothing before two releases are measured)
    <!-- tfperf:versions -->        the home page's table of claims × releases

A finding is a colour and a word with a symbol (the vocabulary's, ``analyse.effects.WORDS``;
n/a not available, – not measured, ! failed), so that it reads without colour.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ...analyse import (
    FAILED,
    NOT_AVAILABLE,
    NOT_MEASURED,
    RULE,
    WORDS,
    Claim,
    ClaimCheck,
    Dataset,
    Finding,
    VersionCell,
    VersionStrip,
    change_text,
    claims_by_release,
    hardware_name,
    is_development,
    listing,
    scenario_labels,
    short_labels,
    sort_versions,
    speedup_rows,
    steady_text,
)
from ..page.context import SVG_URL, Context, Directive, provenance
from ..page.embed import chart_html
from ..page.html import Markup, admonition, element, h, hidden, join, times
from ..page.topic_chart import version_chart_specs

OTHER = {NOT_AVAILABLE: ("", "n/a", "na"), FAILED: ("!", "failed", "failed"), NOT_MEASURED: ("–", "", "nodata")}
COMMAND = "tfperf run --tf 2.15.1 --profile history"
KEY = (" · ".join(f"{WORDS[f].symbol} {WORDS[f].text}" for f in (Finding.FASTER, Finding.SLOWER, Finding.SAME,
                                                               Finding.UNCLEAR, Finding.DEPENDS))
       + " · n/a: not available in that release (the variant does not exist there) · –: not measured · "
         "*: some scenarios not available")
# Each cell's whole finding is its title; docs/assets/tfperf.js shows it on a tap, a click or
# the keyboard's focus, under the table.
DETAIL_HINT = "tap or click a cell, or move to it with Tab and the arrow keys, for its whole finding"


def _look(cell: VersionCell) -> tuple[str, str, str]:
    """(symbol, word, css) of a cell."""
    if cell.finding is not None and cell.definite:
        w = WORDS[cell.finding]
        return w.symbol, w.text, w.css
    return OTHER.get(cell.kind, ("–", "", "nodata"))


def _partial(cell: VersionCell) -> bool:
    return cell.definite and cell.unavailable_scenarios > 0


# a reason recorded with the scenario's setting ids in front ("keras=3: tf.keras is Keras 2 in ...")
_IDS = re.compile(r"^((?:[A-Za-z_]\w*=[^,:\s]+,?)+): ")


def reader_reason(ds: Dataset, topic: str, reason: str) -> str:
    """A recorded reason with its leading setting ids in the topic's reader words
    ("Keras 3: tf.keras is Keras 2 in ...")."""
    m = _IDS.match(reason)
    if not m:
        return reason
    pairs = dict(p.split("=", 1) for p in m.group(1).rstrip(",").split(","))
    return f"{ds.settings_words(topic, pairs)}: {reason[m.end():]}"


def _said(ds: Dataset, topic: str) -> Callable[[str], str]:
    return lambda reason: reader_reason(ds, topic, reason)


def cell_title(cell: VersionCell, label: str, say: Callable[[str], str] = str) -> str:
    """The whole finding of a cell, for its tooltip: "TF 2.15: slower in 1 scenario measured
    (0.6×); not available in 2 scenarios: Keras 3 is not the tf.keras of TensorFlow 2.15"."""
    out = f"TF {label}: {cell.text}"
    if cell.unavailable:
        n = cell.unavailable_scenarios
        out += f"; not available in {n} scenario{'s' if n != 1 else ''}: " + "; ".join(map(say, cell.unavailable))
    if cell.failures:
        out += "; failed: " + "; ".join(map(say, cell.failures))
    return out


def cell_text(cell: VersionCell) -> Markup:
    """"▼ slower", the symbol and the word in spans of their own (the table stacks them)."""
    sym, word, _ = _look(cell)
    parts = [element("span", sym, class_="tfperf-vsym") if sym else "", " " if sym and word else "",
             element("span", word, class_="tfperf-vword") if word else "", element("sup", "*") if _partial(cell) else ""]
    return join(parts)


def _stated(strip: VersionStrip, c: VersionCell) -> dict[str, str | None]:
    """The data attributes of a cell that states a finding (``context.stated``)."""
    if not c.definite:
        return {}
    return {"data_claim": f"{strip.topic}/{strip.claim_id}", "data_runner": strip.runner,
            "data_release": _minor(c.version), "data_finding": str(c.finding), "data_scope": "all",
            "data_text": c.text}


def _minor(version: str) -> str:
    parts = version.split(".")
    return ".".join(parts[:2])


def strip_html(strip: VersionStrip, labels: dict[str, str], say: Callable[[str], str] = str) -> Markup:
    items = [element("li", join([element("span", labels.get(c.version, c.version), class_="tfperf-strip-ver"),
                                 element("span", cell_text(c), class_="tfperf-strip-word")]),
                     class_=f"tfperf-strip-cell tfperf-{_look(c)[2]}" + (" tfperf-stated" if c.definite else ""),
                     title=cell_title(c, labels.get(c.version, c.version), say), **_stated(strip, c))
             for c in strip.cells]
    return Markup('<div class="tfperf-details-box" data-tfperf-details>'
                  + element("ol", join(items), class_="tfperf-strip", aria_label="Finding per TensorFlow release")
                  + "</div>")


def _notes(strip: VersionStrip, labels: dict[str, str], say: Callable[[str], str] = str) -> Markup:
    """The reasons a release is not available (or failed), as footnotes under the strip.
    Releases whose reasons differ only in the release named ("... of TensorFlow 2.12",
    "... of TensorFlow 2.13") share one note, which quotes the first."""
    groups: dict[tuple[str, str], tuple[list[str], str]] = {}
    for c in strip.cells:
        lab = labels.get(c.version, c.version)
        if c.unavailable:
            n = c.unavailable_scenarios
            scope = f"in {n} of {n + len(c.checks)} scenarios" if c.definite else "in any scenario"
            why = tuple(map(say, c.unavailable))
            groups.setdefault((f"not available {scope}", _masked(why)), ([], "; ".join(why)))[0].append(lab)
        if c.failures:
            why = tuple(map(say, c.failures))
            groups.setdefault(("failed", _masked(why)), ([], "; ".join(why)))[0].append(lab)
    items = [element("li", join([element("strong", listing(labs)), f": {what}: ", why,
                                 f" (likewise in {listing(labs[1:])})" if len(labs) > 1 and why != masked else ""]))
             for (what, masked), (labs, why) in groups.items()]
    return element("ul", join(items), class_="tfperf-strip-notes") if items else Markup("")


def _masked(reasons: tuple[str, ...]) -> str:
    return re.sub(r"\d+(?:\.\d+)+", "#", "; ".join(reasons))


def _verdict(strip: VersionStrip, labels: dict[str, str]) -> tuple[str, str]:
    """("Changed", the changes) or ("No change", the steady finding): the line under a strip
    and the end of its chart's name for a screen reader."""
    changes = strip.changes
    ahead = strip.next_release
    if changes:
        return "Changed", "; ".join(change_text(c, labels) for c in [*changes, *([ahead] if ahead else [])])
    if ahead is not None:
        return "Changes in the next release", f"{change_text(ahead, labels)}; {steady_text(strip, labels)}"
    return "No change", steady_text(strip, labels)


def _verdict_line(strip: VersionStrip, labels: dict[str, str]) -> Markup:
    grid = strip.grid_note
    note = element("small", f" Scenarios per release: {grid}.") if grid else ""
    kind, text = _verdict(strip, labels)
    said = element("strong", text) if kind == "Changed" else h(text)
    return Markup(f'<p class="tfperf-version-verdict">{kind}: ' + said + note + "</p>")


def _what(ctx: Context, topic: str, claim: Claim) -> str:
    ds = ctx.ds
    if "candidate_settings" in claim or "baseline_settings" in claim:
        f, s = (", ".join(ds.setting_label(topic, k, v) for k, v in (scope or {}).items())
                for scope in (claim.get("candidate_settings"), claim.get("baseline_settings")))
        return f"{f} over {s}"
    return f"{ds.label(topic, str(claim.get('candidate')))} over {ds.label(topic, str(claim.get('baseline')))}"


def _chart(ctx: Context, strip: VersionStrip, labels: dict[str, str]) -> Markup:
    rows = speedup_rows(strip, labels)
    if not rows:
        return Markup("")
    versions = [labels.get(v, v) for v in strip.versions]
    spec, static = version_chart_specs(rows, versions, _what(ctx, strip.topic, strip.claim))
    svg = ctx.svgs.svg_name(static)
    kind, text = _verdict(strip, labels)
    alt_text = (f"Speedup of {_what(ctx, strip.topic, strip.claim)} in each TensorFlow release on the "
                f"{hardware_name(ctx.ds.runners.get(strip.runner), strip.runner)}. {kind}: {text}")
    return Markup('<figure class="tfperf-figure">' + chart_html(ctx.next_id("chart"), spec, ctx.prefix + SVG_URL + svg,
                                                               alt_text, ctx.shared_rows, ctx.fragments) + "</figure>")


def _measured(strips: list[VersionStrip]) -> dict[str, list[str]]:
    out: dict[str, set[str]] = {}
    for s in strips:
        out.setdefault(s.runner, set()).update(s.versions)
    return {r: sort_versions(vs) for r, vs in sorted(out.items())}


def _measured_text(measured: dict[str, list[str]], labels: dict[str, str]) -> str:
    """"runner x with TensorFlow 2.12, 2.15 and 2.21 (3 releases)"; runners are counted
    apart from releases."""
    parts = [f"runner {r} with TensorFlow {_releases_and_nightly(vs, labels, count=True)}"
             for r, vs in measured.items()]
    return "; ".join(parts)


def _releases_and_nightly(versions: list[str], labels: dict[str, str], count: bool = False) -> str:
    """"2.12, 2.15 and 2.21 (3 releases) and the nightly of 2026-10-26 (a development build)":
    a development build is named apart and never counted among the releases."""
    rel = [labels[v] for v in versions if not is_development(v)]
    dev = [labels[v] for v in versions if is_development(v)]
    text = listing(rel) + (f" ({len(rel)} release{'s' if len(rel) != 1 else ''})" if count and rel else "")
    if dev:
        text += f"{' and ' if rel else ''}the {listing(dev)} (a development build)"
    return text


def no_versions(ctx: Context, topic: str | None) -> Markup:
    releases = [v for v in ctx.ds.versions(topic) if not is_development(v)] if topic else []
    where = f"Measured with {len(releases)} TensorFlow release(s) so far. " if topic else ""
    return admonition("info", "No trend yet", Markup(
        f"<p>{h(where)}Once the same scenarios are measured with two or more TensorFlow releases, this shows "
        "each claim's finding in every release (faster / slower / the same / unclear / not available), its "
        "speedup with the 95% CI per release, and the release where a finding changed. To measure another release on a "
        f"runner: <code>{h(COMMAND)}</code> (one release per run, in its own virtual environment), then rebuild "
        "the site.</p>"))


def block_trends(d: Directive, ctx: Context) -> Markup:
    """A topic's "Across versions" section."""
    topic, ds = str(d.topic), ctx.ds
    strips = ds.version_strips(topic)
    if not strips:
        return no_versions(ctx, topic)
    labels = short_labels(v for s in strips for v in s.versions)
    measured = _measured(strips)
    changed = [s for s in strips if s.changed]
    ids = list(dict.fromkeys(s.claim_id for s in strips))
    several = len(measured) > 1
    out = [Markup(f"<p>Measured on {h(_measured_text(measured, labels))}. Each cell is the claim's finding over "
                  "the scenarios measured with that release; the newest release's is the one at the top of this "
                  "page. A release changes a finding only when, on the scenarios it shares with the release "
                  "before, the finding differs and the two releases' 95% confidence intervals do not overlap. "
                  f"{DETAIL_HINT[0].upper()}{DETAIL_HINT[1:]}.</p>")]
    if changed:
        names = listing(list(dict.fromkeys(s.text.rstrip(".") for s in changed)))
        out.append(Markup(f"<p><strong>{len({s.claim_id for s in changed})} of {len(ids)} claims changed "
                          f"finding</strong> ({h(names)}); the others kept theirs in every release measured.</p>"))
    else:
        out.append(Markup(f"<p><strong>No claim's finding changed</strong> across TensorFlow "
                          f"{h(_releases_and_nightly(sort_versions(labels), labels))}.</p>"))
    for s in strips:
        hw = hardware_name(ds.runners.get(s.runner), s.runner)
        who = join([" ", element("small", f"on the {hw}")]) if several else ""
        out.append(Markup('<div class="tfperf-version-claim">'
                          + f'<p class="tfperf-version-claim-title">{h(s.text)}{who}</p>'
                          + ctx.fetched(strip_html(s, labels, _said(ds, topic)), "the finding per release",
                                        least=0, lines=2)
                          + _verdict_line(s, labels) + _notes(s, labels, _said(ds, topic))
                          + _chart(ctx, s, labels) + "</div>"))
    out.append(Markup(f'<p class="tfperf-strip-key">{h(KEY)}. {h(RULE)}</p>'))
    missing = [str(c.get("text", c.get("id"))).rstrip(".") for c in ds.claims_of(topic) if str(c.get("id")) not in ids]
    if missing:
        out.append(Markup("<p>Not measured across releases (their scenarios were measured with one release only): "
                          + h("; ".join(missing)) + ".</p>"))
    out.append(_scenario_details(ctx, strips, labels))
    out.append(provenance(ctx, [m for m in ds.by_version if m.topic == topic]))
    return Markup("".join(out))


def _scenario_cell(got: ClaimCheck | None, label: str) -> Markup:
    """A release's finding in one scenario: its symbol above its speedup, in the finding's
    colour, the word for screen readers; the speedup's interval in the cell's detail."""
    if got is None:
        return element("td", "–", class_="tfperf-vcell tfperf-nodata")
    w = WORDS[got.finding]
    r = got.ratio
    detail = f"TF {label}: {w.text}" + (f", {times(r.point)} (95% CI {times(r.low)}–{times(r.high)})" if r else "")
    return element("td", join([element("span", w.symbol, class_="tfperf-vsym", aria_hidden="true"),
                               hidden(w.text + ", "), times(r.point) if r else ""]),
                   class_=f"tfperf-vcell tfperf-{w.css}", title=detail)


def _scenario_details(ctx: Context, strips: list[VersionStrip], labels: dict[str, str]) -> Markup:
    """Every scenario of every claim, per release: the finding and speedup, folded. A row
    per scenario, named in its first column (which stays in view when the table scrolls
    sideways); a heading row per claim and runner."""
    versions = sort_versions(labels)
    head = element("th", "scenario", scope="col") + "".join(element("th", labels[v], scope="col") for v in versions)
    several = len({s.runner for s in strips}) > 1
    body: list[str] = []
    rows = 0
    for s in strips:
        # each scenario in the words of the claim's chart and strip ("tiny model, Keras 3")
        named = scenario_labels([ch.scenario for c in s.cells for ch in c.checks], s.label, s.order)
        by: dict[str, dict[str, ClaimCheck]] = {}
        for c in s.cells:
            for ch in c.checks:
                by.setdefault(named[ch.scenario.key], {})[c.version] = ch
        if not by:
            continue
        hw = hardware_name(ctx.ds.runners.get(s.runner), s.runner)
        title = join([s.text, element("small", f" on the {hw}") if several else ""])
        body.append(f'<tr class="tfperf-group"><th colspan="{len(versions) + 1}" scope="colgroup">'
                    f'{element("span", title, class_="tfperf-group-name")}</th></tr>')
        for scen, per in by.items():
            body.append("<tr>" + element("th", scen, scope="row")
                        + "".join(_scenario_cell(per.get(v), labels[v]) for v in versions) + "</tr>")
            rows += 1
    key = " · ".join(f"{WORDS[f].symbol} {WORDS[f].text}" for f in (Finding.FASTER, Finding.SLOWER, Finding.SAME,
                                                                    Finding.UNCLEAR))
    box = ctx.fetched(Markup('<div class="tfperf-details-box" data-tfperf-details>'
                             '<div class="tfperf-table-wrap tfperf-table tfperf-nocards tfperf-versions tfperf-scenarios">'
                             f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div></div>"),
                      "the table")
    return Markup(f'<details class="tfperf-claim-detail"><summary>Every scenario in every release: the finding and '
                  f"speedup of {rows} scenario{'s' if rows != 1 else ''}</summary>{box}"
                  f'<p class="tfperf-strip-key">{h(key)} · –: not measured. Each cell: the finding, and the speedup '
                  f"of the claim's candidate over its baseline; {h(DETAIL_HINT)}</p></details>")


def _changes_text(s: VersionStrip, labels: dict[str, str]) -> str:
    """The strip's changes between releases, then the one the nightly shows, if any."""
    ahead = s.next_release
    return "; ".join(change_text(c, labels) for c in [*s.changes, *([ahead] if ahead else [])])


def block_changes(d: Directive, ctx: Context) -> Markup:
    """Near the top of a topic page: which findings changed, and since which release."""
    topic = str(d.topic)
    strips = ctx.ds.version_strips(topic)
    if not strips:
        return Markup("")
    labels = short_labels(v for s in strips for v in s.versions)
    names = _releases_and_nightly(sort_versions(labels), labels)
    several = len({s.runner for s in strips}) > 1
    changed = [s for s in strips if s.changed or s.next_release]
    link = Markup('<a href="#across-versions">Across versions</a>')
    if not changed:
        return Markup(f'<p class="tfperf-version-note">Across TensorFlow {h(names)}: no finding on this page '
                      f"changed (see {link}).</p>")
    items = [element("li", join([s.text.rstrip("."), " — ", element("strong", _changes_text(s, labels)),
                                 f" on the {hardware_name(ctx.ds.runners.get(s.runner), s.runner)}" if several
                                 else ""]))
             for s in changed]
    return admonition("note", "Changed across TensorFlow releases", join([
        element("ul", join(items)),
        Markup(f"<p>Measured with TensorFlow {h(names)}; the other claims kept their finding. Per release: "
               f"{link}.</p>")]))


def block_versions(d: Directive, ctx: Context) -> Markup:
    """The home page's claims × releases table."""
    t = claims_by_release(ctx.ds, ctx.topic_order)
    if not t.rows:
        return no_versions(ctx, None)
    labels = t.labels
    several = len(t.runners) > 1
    head = element("th", "claim", scope="col") + "".join(
        element("th", f"{labels[v]} (development build)" if is_development(v) else labels[v], scope="col")
        for v in t.versions)
    body: list[str] = []
    last = None
    for row in t.rows:
        page = ctx.topic_pages is None or row.topic in ctx.topic_pages
        href = f"{ctx.prefix}topics/{row.topic}/#across-versions"
        if row.topic != last:
            title: Any = element("a", row.topic_title, href=href) if page else row.topic_title
            body.append(f'<tr class="tfperf-group"><th colspan="{len(t.versions) + 1}" scope="colgroup">'
                        f'{element("span", title, class_="tfperf-group-name")}</th></tr>')
            last = row.topic
        claim: Any = element("a", row.strip.text, href=href) if page else row.strip.text
        hw = hardware_name(ctx.ds.runners.get(row.strip.runner), row.strip.runner)
        who = join([Markup("<br>"), element("small", hw)]) if several else ""
        cells = "".join(element("td", cell_text(c), class_=f"tfperf-vcell tfperf-{_look(c)[2]}"
                                + (" tfperf-stated" if c.definite else ""),
                                title=cell_title(c, labels[v], _said(ctx.ds, row.strip.topic)), **_stated(row.strip, c))
                        for v in t.versions for c in [row.cell(v)])
        body.append(f'<tr><th scope="row">{h(claim)}{h(who)}</th>{cells}</tr>')
    changed = [r for r in t.rows if r.strip.changed or r.strip.next_release]
    runners = len(t.runners)
    claims = len({(row.strip.topic, row.strip.claim_id) for row in t.rows})
    releases = [v for v in t.versions if not is_development(v)]
    nightly = [v for v in t.versions if is_development(v)]
    intro = (f"{claims} claim{'s' if claims != 1 else ''} measured on {runners} "
             f"runner{'s' if runners != 1 else ''} across {len(releases)} TensorFlow releases "
             f"({listing([labels[v] for v in releases])})"
             + (f" and the {listing([labels[v] for v in nightly])}, a development build of the next release, "
                "in the last column (never counted among the releases)" if nightly else "") + ". ")
    intro += (f"{len(changed)} finding{'s' if len(changed) != 1 else ''} changed (listed under the table)."
              if changed else "No finding changed across the releases measured.")
    out: list[str] = [Markup(f"<p>{h(intro)}</p>"),
                      ctx.fetched(Markup('<div class="tfperf-details-box" data-tfperf-details>'
                                         '<div class="tfperf-table-wrap tfperf-table tfperf-nocards tfperf-versions">'
                                         f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody>"
                                         "</table></div></div>"), "the table of claims by release"),
                      Markup(f'<p class="tfperf-strip-key">{h(KEY)}. {h(DETAIL_HINT[0].upper() + DETAIL_HINT[1:])}.</p>')]
    if changed:
        items = []
        for r in changed:
            page = ctx.topic_pages is None or r.topic in ctx.topic_pages
            text = r.strip.text.rstrip(".")
            name: Any = element("a", text, href=f"{ctx.prefix}topics/{r.topic}/#across-versions") if page else text
            hw = hardware_name(ctx.ds.runners.get(r.strip.runner), r.strip.runner)
            items.append(element("li", join([name, " — ", element("strong", _changes_text(r.strip, labels)),
                                             f" (on the {hw})" if several else ""])))
        out.append(Markup("<p>Changed findings:</p>") + element("ul", join(items)))
    if t.unmeasured:
        out.append(Markup("<p>Not measured across releases yet: "
                          + h("; ".join(text.rstrip(".") for _t, _c, text in t.unmeasured)) + ".</p>"))
    return Markup("".join(out))


VERSION_BLOCKS = {"trends": block_trends, "changes": block_changes, "versions": block_versions}
__all__ = ["VERSION_BLOCKS"]
