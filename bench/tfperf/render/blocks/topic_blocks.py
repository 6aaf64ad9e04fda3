"""Block kinds for what some topics need beyond the common ones:

* ``settings``  – each settings group against the topic's baseline settings (cpu_threads);
* ``metrics``   – numbers a setup reports (load time, file size) beside the latency (serving);
* ``breakeven`` – after how many calls a slower first call pays off (XLA);
* ``tenrun``    – a single ten-call mean beside the median and its CI (XLA);
* ``outputs``   – how far each variant's output is from the reference's, and the bound it
  is held to (mixed precision), with the CPU instructions named in ``isa=`` per runner;
* ``arrivals``  – requests as a server sees them (the analysis is
  :mod:`tfperf.analyse.judge.arrivals`): per runner, profile and per-request pattern (after an
  idle gap, at random), a table of each variant's median (p50) and 99th-percentile (p99)
  request time and its speedups over the default; nothing at all for a topic without such
  results.

Placeholders::

    <!-- tfperf:settings cpu_threads threads=default,inter1,omp1 onednn=1 -->
    <!-- tfperf:metrics serving_formats fields=load_s,convert_s,file_bytes -->
    <!-- tfperf:breakeven xla_jit baseline=function candidate=xla -->
    <!-- tfperf:tenrun xla_jit -->
    <!-- tfperf:outputs mixed_precision isa=avx512_bf16,amx_bf16 -->
    <!-- tfperf:arrivals serving_formats -->

Statistics come from the analysis; this module lays them out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from ...analyse import RULE, Measurement, PatternRow, PatternTable, nonfinite, params_id, runner_name, settings_id
from ...stats import Percentile
from ..page.context import STALE_HEAD, Context, Directive, DirectiveError, badge, no_results, provenance, stale_mark
from ..page.html import (
    Markup,
    again,
    element,
    fold,
    h,
    join,
    link,
    percent,
    rows_text,
    seconds,
    seconds_range,
    table,
    times,
    times_ci,
)


def _variants(ctx: Context, topic: str, *names: str) -> None:
    info = ctx.ds.topics.get(topic)
    for n in names:
        if info is not None and n not in info.variants:
            raise DirectiveError(f"topic {topic} has no variant {n!r} (variants: {', '.join(info.variants)})")


# -- settings against the baseline --------------------------------------------------------

def block_settings(d: Directive, ctx: Context) -> Markup:
    """Per runner: one row per settings group, one column per parameter combination; each
    cell the group's speedup over the baseline settings with its CI and verdict. Options
    naming a setting keep only those values (``threads=default,inter1,omp1``)."""
    topic, ds = str(d.topic), ctx.ds
    info = ds.topics.get(topic)
    if info is None or not info.baseline_settings:
        raise DirectiveError(f"{d.text}: topic {topic} declares no baseline_settings")
    keep = {k: {str(v) for v in str(vals).split(",")} for k, vals in d.options.items()}
    unknown = set(keep) - set(info.settings_values) - {k for s in ds.settings_speedups(topic) for k in s.settings}
    if unknown:
        raise DirectiveError(f"{d.text}: {', '.join(sorted(unknown))} is not a setting of {topic}")
    sps = [s for s in ds.settings_speedups(topic)
           if all(str(s.settings.get(k)) in vals for k, vals in keep.items())]
    if not sps:
        return no_results(ds, f"Settings of {topic}")
    base_txt = ", ".join(ds.setting_label(topic, k, v) for k, v in info.baseline_settings.items())
    by_runner: dict[str, list[Any]] = defaultdict(list)
    for s in sps:
        by_runner[s.runner].append(s)
    out = []
    for runner, items in sorted(by_runner.items()):
        col_params = {(s.measurement.params_id, s.measurement.variant): s.params for s in items}
        cols = sorted(col_params, key=lambda c: (_param_key(col_params[c], info.param_values), c[1]))
        groups = sorted({s.measurement.settings_id for s in items}, key=lambda g: _group_key(g, info.settings_values))
        cell = {(s.measurement.settings_id, s.measurement.params_id, s.measurement.variant): s for s in items}
        several_variants = len({v for _p, v in cols}) > 1
        rows = []
        for g in groups:
            sample = next(s for s in items if s.measurement.settings_id == g)
            name = join([", ".join(ds.setting_label(topic, k, v) for k, v in sorted(sample.settings.items())),
                         Markup("<br>"), element("small", g)])
            cells: list[Any] = [name]
            noise: set[float | None] = set()
            for c in cols:
                got = cell.get((g, *c))
                if got is None:
                    cells.append("–")
                elif got.is_baseline:
                    cells.append(element("em", "baseline"))
                elif got.ratio is None:
                    cells.append(element("span", got.problem or "no ratio", class_="tfperf-nodata"))
                else:
                    noise.add(got.noise.value if got.noise else None)
                    cells.append(join([element("strong", times(got.ratio.point)), " ",
                                       element("small", f"({times(got.ratio.low)}–{times(got.ratio.high)})"),
                                       Markup("<br>"), badge(got.finding), stale_mark([got.measurement])]))
            floors = sorted(n for n in noise if n is not None)
            if floors:
                cells[0] = join([cells[0], Markup("<br>"), element(
                    "small", f"noise floor ±{percent(floors[-1])}" if len(floors) == 1 else
                    f"noise floor ±{percent(floors[0])} to ±{percent(floors[-1])}")])
            rows.append(cells)
        heads = ["settings", *[ds.params_words(topic, col_params[c]) + (f" · {ds.label(topic, c[1])}" if several_variants else "")
                               for c in cols]]
        ms = [m for s in items for m in (s.measurement, s.baseline) if m is not None]
        out.append(fold(f"{runner_name(ctx.ds, runner)}: speedup over {base_txt}, {rows_text(len(rows), 'settings group')}",
                        join([table(heads, rows), provenance(ctx, ms)]), len(rows)))
    note = Markup("<p><small>Each cell: time with the baseline settings / time with these settings, same "
                  "runner, parameters and code (above 1×: faster). Measured side by side, it is the median of "
                  f"per-round ratios, with its 95% CI in brackets. {h(RULE)}</small></p>")
    return Markup("".join(out) + note)


def _param_key(params: Mapping[str, object], order: dict[str, list[Any]]) -> tuple[Any, ...]:
    """Parameter combinations in the YAML's declared order of values."""
    return tuple((order.get(k, []).index(v) if v in order.get(k, []) else len(order.get(k, [])), str(v))
                 for k, v in sorted(params.items()))


def _group_key(sid: str, order: dict[str, list[Any]]) -> tuple[Any, ...]:
    """Settings groups in the YAML's declared order (numbers numerically)."""
    key = []
    for part in sid.split(","):
        k, _, v = part.partition("=")
        vals = [str(x) for x in order.get(k, [])]
        if v.isdigit() and "1..cores" in vals:      # thread counts, in numeric order
            key.append((vals.index("1..cores"), int(v), ""))
        elif v in vals:
            key.append((vals.index(v), 0, ""))
        elif v.isdigit():
            key.append((len(vals), int(v), ""))
        else:
            key.append((len(vals) + 1, 0, v))
    return tuple(key)


# -- metrics beside latency ---------------------------------------------------------------

def _metric(name: str, v: float | None) -> str:
    if v is None:
        return "–"
    if name.endswith("_s"):
        return seconds(v)
    if name.endswith("_bytes"):
        for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
            if v >= scale:
                return f"{v / scale:.3g} {unit}"
        return f"{v:.0f} B"
    return f"{v:.3g}"


def _spread(name: str, vals: list[float]) -> str:
    if not vals:
        return "–"
    lo, hi = _metric(name, min(vals)), _metric(name, max(vals))
    return lo if lo == hi else f"{lo} – {hi}"


def _metric_title(name: str) -> str:
    """load_s -> "load time", file_bytes -> "file size"; other names as they are."""
    if name.endswith("_s"):
        return f"{name[:-2].replace('_', ' ')} time"
    if name.endswith("_bytes"):
        return f"{name[:-6].replace('_', ' ')} size"
    return name


def block_metrics(d: Directive, ctx: Context) -> Markup:
    """Per runner and settings group, one row per variant: the median time per call for each
    value of ``columns`` (default: the first parameter with several values), then each
    metric in ``fields`` (its range over those cases where they differ), then the output check."""
    topic, ds = str(d.topic), ctx.ds
    fields = [f for f in str(d.options.get("fields", "")).split(",") if f]
    if not fields:
        raise DirectiveError(f"{d.text}: needs fields=name,name (keys of result.metrics)")
    ms = [m for m in ds.current if m.topic == topic]
    if not ms:
        return no_results(ds, f"Metrics of {topic}")
    info = ds.topics.get(topic)
    params = sorted({k for m in ms for k in m.params})
    col = d.options.get("columns")
    if col is not None and col not in params:
        raise DirectiveError(f"{d.text}: columns={col!r} is not a parameter of {topic}")
    if col is None:
        multi = [p for p in params if len({str(m.params.get(p)) for m in ms}) > 1]
        col = multi[0] if multi else None
    order = (info.param_values.get(col) if info and col else None) or []
    colvals = sorted({m.params.get(col) for m in ms} if col else {None},
                     key=lambda v: (order.index(v) if v in order else len(order), str(v)))
    unit = ds.unit(topic)
    groups: dict[tuple[str, str, str], list[Measurement]] = defaultdict(list)
    for m in ms:
        others = {k: v for k, v in m.params.items() if k != col}
        groups[(m.runner, m.settings_id, params_id(others))].append(m)
    variant_order = list(info.variants) if info else []
    out = []
    for (runner, sid, rest), gms in sorted(groups.items()):
        rows = []
        by_variant: dict[str, list[Measurement]] = defaultdict(list)
        for m in gms:
            by_variant[m.variant].append(m)
        for v in sorted(by_variant, key=lambda v: (variant_order.index(v) if v in variant_order else 99, v)):
            vms = by_variant[v]
            cells: list[Any] = [ds.label(topic, v)]
            for cv in colvals:
                at = next((x for x in vms if x.params.get(col) == cv), None) if col else vms[0]
                if at is None:
                    cells.append("–")
                elif not at.ok or at.median is None:     # an ok result has a median
                    cells.append(element("span", at.status, class_="tfperf-nodata", title=(at.error or "")[-300:]))
                else:
                    div = ds.per_call_divisor(topic, at.params)
                    cells.append(join([seconds(at.median / div), stale_mark([at])]))
            for f in fields:
                cells.append(_spread(f, [m.metrics[f] for m in vms if f in m.metrics]))
            bad = [m for m in vms if m.within_tolerance is False]
            failed = [m for m in vms if m.status != "ok"]
            if bad:
                check: Any = element("span", _wrong_output(bad), class_="tfperf-tag tfperf-fails")
            elif failed:
                check = element("span", f"{failed[0].status} in {len(failed)} case(s)", class_="tfperf-nodata")
            elif all(m.within_tolerance is True or m.is_reference for m in vms):
                check = "reference" if all(m.is_reference for m in vms) else "within tolerance"
            else:
                check = "not checked"
            rows.append([*cells, check])
        heads = ["variant", *[f"per {unit}, {ds.params_words(topic, {col: cv})}" if col else f"per {unit}" for cv in colvals],
                 *[_metric_title(f) for f in fields], "output"]
        m0 = gms[0]          # the group's settings and other parameters, in the charts' words
        others = {k: v for k, v in m0.params.items() if k != col}
        what = ", ".join(x for x in (ds.settings_words(topic, m0.settings) if sid != "default" else "",
                                     ds.params_words(topic, others) if rest != "-" else "") if x and x != "–")
        out.append(fold(f"{runner_name(ctx.ds, runner)}{' — ' + what if what else ''}: {rows_text(len(rows), 'variant')}",
                        join([ctx.fetched(table(heads, rows), "the table"), provenance(ctx, gms)]), len(rows)))
    note = Markup(f"<p><small>Time: the median per {h(unit)}. {h(', '.join(_metric_title(f) for f in fields))}: "
                  f"as reported by each case's setup ({h(', '.join(fields))} in the results files; a range where "
                  "the cases of one variant differ).</small></p>")
    return Markup("".join(out) + note)


def _wrong_output(bad: list[Measurement]) -> str:
    """The output cell of a variant outside tolerance in some cases: how far off it is.
    An output with NaN or inf where the reference has numbers says how many values; its
    max abs diff covers only the finite ones (0 for an all-NaN output), so it is not shown."""
    parts = []
    counts = [c for c in (nonfinite(m) for m in bad) if c is not None]
    if counts:
        k, n = sum(c[0] for c in counts), sum(c[1] for c in counts)
        parts.append(f"NaN or inf in {'all ' + str(n) if k == n else f'{k} of {n}'} values")
    diffs = [m.max_abs_diff for m in bad if nonfinite(m) is None and m.max_abs_diff is not None]
    if diffs or not counts:
        parts.append(f"outside tolerance (max abs diff {max(diffs):.3g})" if diffs else "outside tolerance")
    return "wrong output: " + "; ".join(parts)


# -- break-even of a slower first call ----------------------------------------------------

def _variant_key(ds: Any, topic: str, variants: list[str]) -> Markup:
    """The variant names a table uses, with their labels."""
    return Markup('<p class="tfperf-legend-key">' + join(
        [join([element("code", v), ": ", ds.label(topic, v)]) for v in variants], "; ") + "</p>")


def _calls(n: int | None) -> str:
    return "never" if n is None else str(n)


def block_breakeven(d: Directive, ctx: Context) -> Markup:
    topic, ds = str(d.topic), ctx.ds
    baseline, candidate = d.options.get("baseline"), d.options.get("candidate")
    if not baseline or not candidate:
        raise DirectiveError(f"{d.text}: needs baseline=<variant> candidate=<variant>")
    _variants(ctx, topic, baseline, candidate)
    rows_be = ds.breakeven(topic, baseline, candidate)
    if not rows_be:
        return no_results(ds, f"Break-even of {candidate} against {baseline} in {topic}")
    unit = ds.unit(topic)
    info = ds.topics.get(topic)
    porder = info.param_values if info else {}
    by_runner: dict[str, list[Any]] = defaultdict(list)
    for row, ms in rows_be:
        by_runner[str(row.runner)].append((row, ms))
    out = [_variant_key(ds, topic, [baseline, candidate])]
    for runner, items in sorted(by_runner.items()):
        items.sort(key=lambda bm: (settings_id(bm[0].settings), _param_key(bm[0].params, porder)))
        show_settings = len({settings_id(b.settings) for b, _ms in items}) > 1
        rows = []
        for be, ms in items:
            div = ds.per_call_divisor(topic, be.params)
            rng = ("–" if be.calls is None and be.calls_best is None else
                   f"{_calls(be.calls_best)} to {_calls(be.calls_worst)}")
            label = element("strong", be.label) if be.calls is not None else element("span", "never", class_="tfperf-tag tfperf-fails")
            rows.append([*([ds.settings_words(topic, be.settings)] if show_settings else []), ds.params_words(topic, be.params),
                         f"{seconds(be.first_base)} → {seconds(be.first_cand)}",
                         f"{seconds(be.median_base / div)} → {seconds(be.median_cand / div)}", label, rng, stale_mark(ms)])
        t = table([*(["settings"] if show_settings else []), "parameters",
                   join(["first call: ", element("code", baseline), " → ", element("code", candidate)]),
                   join([f"median per {unit}: ", element("code", baseline), " → ", element("code", candidate)]),
                   join([element("code", candidate), " pays off"]), "range (95% CIs)", STALE_HEAD], rows)
        out.append(fold(f"{runner_name(ctx.ds, runner)}: {rows_text(len(rows), 'scenario')}",
                        join([ctx.fetched(t, "the table"), provenance(ctx, [m for _b, ms in items for m in ms])]), len(rows)))
    per_call = info.per_call if info else None
    per = (f" One call is {h(per_call.divide_by)} {h(unit)}s (the parameter of that name); "
           "the break-even counts calls." if per_call and unit != "call" else "")
    note = Markup("<p><small>“after N calls”: from the N-th call on, N calls of the second take no longer in total "
                  "than N calls of the first, first calls included; “never”: it is slower per call. The range uses "
                  f"the ends of the two medians' 95% confidence intervals (“never” where the worst case never pays off).{per}</small></p>")
    return Markup("".join(out) + note)


# -- one ten-call mean against the median -------------------------------------------------

def block_tenrun(d: Directive, ctx: Context) -> Markup:
    topic, ds = str(d.topic), ctx.ds
    runs = int(d.options.get("runs", 10))
    views = ds.ten_runs(topic, runs)
    if not views:
        return no_results(ds, f"Ten-run view of {topic}")
    info = ds.topics.get(topic)
    order = list(info.variants) if info else []
    porder = info.param_values if info else {}
    by_runner: dict[str, list[Any]] = defaultdict(list)
    for m, v in views:
        by_runner[m.runner].append((m, v))
    out: list[Markup] = []
    windows: set[int] = set()
    for runner, items in sorted(by_runner.items()):
        items.sort(key=lambda mv: (mv[0].settings_id, _param_key(mv[0].params, porder),
                                   order.index(mv[0].variant) if mv[0].variant in order else 99))
        show_settings = len({m.settings_id for m, _v in items}) > 1
        rows = []
        last = None
        for m, v in items:
            div = ds.per_call_divisor(topic, m.params)
            windows.add(v.calls_per_window)
            outside = (element("span", "outside the CI", class_="tfperf-tag tfperf-fails")
                       if v.first_mean_outside_ci else "inside")
            scen = (m.settings_id, m.params_id)
            first = scen != last              # a scenario's later rows repeat it as cards need it
            sets, pars = ds.settings_words(topic, m.settings), ds.params_words(topic, m.params)
            rows.append([*([sets if first else again(sets)] if show_settings else []),
                         pars if first else again(pars), ds.label(topic, m.variant),
                         seconds(v.first_mean / div), seconds_range(v.window_low / div, v.window_high / div),
                         f"{seconds(v.median / div)} ({seconds_range(v.ci_low / div, v.ci_high / div)})",
                         percent((v.window_high - v.window_low) / v.median), outside, stale_mark([m])])
            last = scen
        t = table([*(["settings"] if show_settings else []), "parameters", "variant", f"one {runs}-call mean",
                   f"range of {runs}-call means", "median (95% CI)", "range / median", "the single mean is", STALE_HEAD], rows)
        out.append(fold(f"{runner_name(ctx.ds, runner)}: {rows_text(len(rows))} in "
                        f"{rows_text(len({(m.settings_id, m.params_id) for m, _v in items}), 'scenario')}",
                        join([ctx.fetched(t, "the table"), provenance(ctx, [m for m, _v in items])]), len(rows)))
    outside_n = sum(1 for _m, v in views if v.first_mean_outside_ci)
    out.insert(0, Markup(f"<p>In <strong>{outside_n} of {len(views)}</strong> cases the single {runs}-call mean "
                         "lies outside the 95% confidence interval of the median of all samples.</p>"))
    more = sorted(w for w in windows if w > runs)
    foot = (f" Where the harness timed several calls per sample, a window is a whole number of samples: "
            f"{', '.join(str(w) for w in more)} calls instead of {runs} in some rows." if more else "")
    note = Markup(f"<p><small>“one {runs}-call mean”: the mean of the first {runs} timed calls after warm-up, "
                  f"what <code>timeit(number={runs}) / {runs}</code> would have printed; the range: the lowest and "
                  f"highest such mean over every window of consecutive calls in the run.{h(foot)}</small></p>")
    return Markup("".join(out) + note)


# -- how far each output is from the reference's ------------------------------------------

ISA_NAMES = {"avx512_bf16": "AVX-512 BF16", "amx_bf16": "AMX BF16", "amx_tile": "AMX tiles",
             "avx512f": "AVX-512", "avx512_fp16": "AVX-512 FP16", "avx2": "AVX2"}


def _isa_line(ms: list[Measurement], flags: list[str]) -> Markup:
    """The CPU's instructions named in ``flags`` as its environment records them: has, lacks,
    or not recorded (an environment without flags, e.g. a platform where none were read)."""
    env = next((m.env for m in sorted(ms, key=lambda m: m.finished, reverse=True) if m.env), None)
    isa = (env.get("isa") if env else None) or {}
    parts = [f"{ISA_NAMES.get(f, f)} {'yes' if isa.get(f) else 'no'}" if f in isa
             else f"{ISA_NAMES.get(f, f)} not recorded" for f in flags]
    # What oneDNN itself chose, where the environment recorded it (newer runs): nothing otherwise.
    used = sorted({str(u["isa"]) for m in ms if m.env and (u := m.env.get("onednn_used")) and u.get("isa")})
    ran = f" oneDNN ran on: {h(', '.join(used))}." if used else ""
    return Markup(f"<p><small>This CPU's instructions: {h('; '.join(parts))}.{ran}</small></p>")


def _bound(ms: list[Measurement], reference: str) -> str:
    bounds = sorted({(m.output.atol, m.output.rtol) for m in ms if m.output and m.output.atol is not None
                     and m.output.rtol is not None})
    if not bounds:
        return ""
    return "; ".join(f"|output − {reference}'s| ≤ {a:g} + {r:g} × |{reference}'s|" for a, r in bounds)


def block_outputs(d: Directive, ctx: Context) -> Markup:
    """Per runner: one row per scenario and settings group, one column per variant other
    than the reference: the largest difference, element by element, of its output from the
    reference's, and whether it is within the topic's bound (stated under the table, from
    the results). A variant outside it is marked as a wrong output. ``isa=a,b`` adds the
    runner's CPU flags of those names, as its environment recorded them."""
    topic, ds = str(d.topic), ctx.ds
    info = ds.topics.get(topic)
    if info is None:
        raise DirectiveError(f"{d.text}: no topic {topic}")
    flags = [f for f in str(d.options.get("isa", "")).split(",") if f]
    ms = [m for m in ds.current if m.topic == topic]
    if not ms:
        return no_results(ds, f"Output differences of {topic}")
    variants = [v for v in info.variants if v != info.reference]
    ref_label = ds.label(topic, info.reference)
    porder = list(info.param_values)
    out = []
    for runner in sorted({m.runner for m in ms}):
        mine = [m for m in ms if m.runner == runner]
        rows_by: dict[tuple[str, str], dict[str, Measurement]] = defaultdict(dict)
        for m in mine:
            rows_by[(params_id(m.params), m.settings_id)][m.variant] = m
        rows = []
        for (_pid, _sid), by_variant in sorted(rows_by.items(), key=lambda kv: _row_key(kv[1], porder)):
            any_m = next(iter(by_variant.values()))
            where = [info.value_label(k, any_m.params[k]) for k in porder if k in any_m.params]
            where += [info.value_label(k, v) for k, v in any_m.settings.items()]
            cells: list[Any] = [", ".join(where)]
            for v in variants:
                cells.append(_output_cell(by_variant.get(v)))
            rows.append([*cells, stale_mark(by_variant.values())])
        bound = _bound(mine, ref_label)
        body = join([_isa_line(mine, flags) if flags else "",
                     table(["scenario", *[ds.label(topic, v) for v in variants], STALE_HEAD], rows),
                     Markup(f"<p><small>Largest difference from {h(ref_label)}'s output, element by element, "
                            f"on the same inputs; the bound: {h(bound or 'not recorded')}.</small></p>"),
                     provenance(ctx, mine)])
        out.append(fold(f"{runner_name(ctx.ds, runner)}: {rows_text(len(rows), 'scenario')}", body, len(rows)))
    return Markup("".join(out))


def _row_key(by_variant: Mapping[str, Measurement], porder: list[str]) -> tuple[str, ...]:
    m = next(iter(by_variant.values()))
    return (m.settings_id, *(str(m.params.get(k)) for k in porder))


def _output_cell(m: Measurement | None) -> Any:
    if m is None:
        return "–"
    if m.within_tolerance is False:
        return element("span", _wrong_output([m]), class_="tfperf-tag tfperf-fails")
    if m.status != "ok":
        return element("span", m.status, class_="tfperf-nodata", title=(m.error or "")[-300:])
    if m.max_abs_diff is None:
        return "not checked"
    return f"{m.max_abs_diff:.2g} (within the bound)"


EXTRA_BLOCKS = {"settings": block_settings, "metrics": block_metrics, "breakeven": block_breakeven,
                "tenrun": block_tenrun, "outputs": block_outputs}


# -- requests as a server sees them -------------------------------------------------------

HEAD = "Requests one at a time and at random"


def _time(p: Percentile | None) -> Markup:
    """``2.5 ms`` with its 95% CI below (an upper bound too few requests give is said so)."""
    if p is None:
        return Markup("–")
    ci = (f"95% CI {seconds(p.ci_low)} – {seconds(p.ci_high)}" if p.ci_low is not None and p.ci_high is not None
          else f"95% CI from {seconds(p.ci_low)}; too few requests for an upper bound" if p.ci_low is not None
          else "too few requests for a CI")
    return join([seconds(p.value), Markup("<br>"), element("small", ci)])


def _speedup(row: PatternRow, at: str) -> Markup | str:
    side = row.p50_speedup if at == "p50" else row.p99_speedup
    if side is None:
        return ""
    r = side.ratio
    return join([badge(side.finding), Markup("<br>"), element("small", times_ci(r.point, r.low, r.high))])


def _table(ctx: Context, topic: str, t: PatternTable) -> Markup:
    ds = ctx.ds
    info = ds.topics.get(topic)
    by_settings = bool(t.baseline_settings)
    variants = len({r.variant for r in t.rows}) > 1
    rows = []
    last = None
    for row in t.rows:
        m = row.measurement
        what = [*(info.value_label(k, v) if info else f"{k} {v}" for k, v in m.params.items())]
        if by_settings:
            what += [ds.label(topic, m.variant)] if variants else []
            side = ", ".join(ds.setting_label(topic, k, v) for k, v in m.settings.items()) or "–"
        else:
            what += [ds.setting_label(topic, k, v) for k, v in m.settings.items()]
            side = ds.label(topic, m.variant)
        case = ", ".join(what) or "–"
        shown: Markup | str = again(case) if case == last else case
        last = case
        name: Markup | str = element("strong", side) if t.is_base(row) else side
        if row.problem:
            rows.append([shown, name, element("em", row.problem), "", "", ""])
            continue
        rows.append([shown, name, _time(row.p50), _time(row.p99), _speedup(row, "p50"), _speedup(row, "p99")])
    base = (", ".join(ds.setting_label(topic, k, v) for k, v in t.baseline_settings.items()) if by_settings
            else ds.label(topic, t.default))
    body = table(["case", "settings" if by_settings else "variant", "median request (p50)", "slowest 1% (p99)",
                  f"p50 against {base}", f"p99 against {base}"], rows, class_="tfperf-table tfperf-arrivals")
    noise = (f"Run-to-run noise of this pattern (the same case measured twice): {percent(t.noise.value)} at p50"
             if t.noise else "No A/A pair for this pattern: 5% assumed at p50")
    noise += f", {percent(t.p99_noise)} at p99." if t.p99_noise is not None else "."
    summary = f"{runner_name(ds, t.runner)}, {t.profile} profile: requests {t.words}, {rows_text(t.scenarios, 'scenario')}"
    return fold(summary, join([ctx.fetched(body, "the table"), element("p", noise, class_="tfperf-legend"),
                               provenance(ctx, [r.measurement for r in t.rows])]), len(rows))


def block_arrivals(d: Directive, ctx: Context) -> Markup:
    topic = str(d.topic)
    tables = ctx.ds.arrival_tables(topic)
    if not tables:
        return Markup("")
    intro = element("p", join([
        ("Everything above times blocks of calls made back to back, a saturated loop. A server sees requests "
        "otherwise: one now and then, after the machine went idle, or at random times, queueing when one "
        "arrives while another still runs. Here each request is timed alone, from its arrival to its answer. "
        "The median request (p50) is what a typical user waits; the slowest 1% (p99) is the tail a server is "
        "judged by. Faster, slower and the same follow the rule of the rest of the page, with the noise of "
        "each pattern. "), link(f"{ctx.prefix}how-we-measure/#how-requests-arrive", "How we measure"),
        " explains what each pattern models."]))
    return join([element("h2", HEAD, id="arrivals"), intro, *(_table(ctx, topic, t) for t in tables)])


ARRIVAL_BLOCKS = {"arrivals": block_arrivals}
__all__ = ["ARRIVAL_BLOCKS", "EXTRA_BLOCKS", "HEAD"]
