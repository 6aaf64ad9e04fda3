#!/usr/bin/env python3
"""How good is the measuring method? Figures read from committed results, no TensorFlow.

    .venv/bin/python scripts/method_report.py                     # data/ of this checkout
    .venv/bin/python scripts/method_report.py --runner R --profile full
    .venv/bin/python scripts/method_report.py --again DIR         # reproducibility: DIR's results vs data/
    .venv/bin/python scripts/method_report.py --runner A --again-runner B   # two runners, e.g. two Xeons

Prints, for one runner and profile:
  1. the A/A pairs (the baseline of each scenario measured twice per round): how far from
     1.0 and how wide, for cases of 1 ms or more; target: within ±5%, CI half-width <= 5%;
  2. the CI half-width of every speedup the site publishes (claims, recommendations,
     settings against their baseline); target: median <= 3%;
  3. settings that must measure the same: threads=2 against the default threads on a
     2-core runner (cpu_threads), one ONNX graph under Keras 2 and Keras 3 (serving_formats);
     target: within ±5%;
  4. runner hygiene and cost: scenarios flagged as measured beside other work, seconds
     per topic;
  5. per arrival pattern (after an idle gap, Poisson arrivals; back to back is 1.): the
     A/A pairs' p50 ratio (target: within ±5%) and p99 ratio, and the relative width of the
     p99's 95% CI, of the A/A pairs and of every result (how long a run a tail claim needs);
  6. scenarios the file holds two runs of (measured again with ``tfperf run --force``, the
     same code and settings): how many speedups agree within ±10% (target: >= 90%), how
     often the second run's value lies inside the first run's interval, and how much the
     speedups move between runs against what the two intervals explain, topic by topic;
     and each run's finding by the pages' rule: of the clear ones, how many the other run
     repeated (target: >= 90%) and contradicted (target: <= 1%); and how much longer the
     second run's host took on the host probe, where both runs timed it;
  7. with --again (or --again-runner): speedups of the same cases in two runs, or on two
     runners (target: >= 90% within ±10%), and claim verdicts that went from holds to
     refuted or back (target: none).
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

from tfperf import store
from tfperf.analyse import Dataset, Finding, Measurement, controls_by_runner, repeats_by_runner
from tfperf.analyse.dataset import analyse_documents
from tfperf.analyse.views.repeats import RunnerRepeats
from tfperf.arrival import words


def _restrict(ds: Dataset, runner: str, profile: str) -> Dataset:
    ds.measurements = [m for m in ds.measurements if m.runner == runner and m.source.profile == profile]
    ds.forget()
    return ds


def runner_file(data: str | Path, snippets: str | Path, runner: str, profile: str
                ) -> tuple[Path, dict[str, Any], Dataset]:
    """The results file of one runner's profile, validated, and its dataset analysed from
    that file alone: the report reads no other runner's file (all of data/ is tens of MB)."""
    path = store.results_path(data, runner, profile)
    doc = store.load(path)
    ds = analyse_documents([(path, doc)], snippets, Path(data) / "results")
    return path, dict(doc), _restrict(ds, runner, profile)


def standing(doc: dict[str, Any]) -> dict[str, Any]:
    """The file as it stands: the scenarios (with their A/A pairs and results) that hold each
    case's newest result under each TensorFlow and Keras. A scenario measured again (``tfperf
    run --force``) keeps its earlier records in the file, but its new rounds replace them."""
    newest: dict[tuple[str, str | None, str | None], dict[str, Any]] = {}
    for r in doc["results"]:
        k = (r["case_id"], r["key"].get("tensorflow"), r["key"].get("keras"))
        if k not in newest or r["finished_at"] > newest[k]["finished_at"]:
            newest[k] = r
    ids = {r["interleave"]["id"] for r in newest.values() if r.get("interleave")}
    return {**doc, "noise": [n for n in doc["noise"] if n.get("interleave") in ids],
            "scenarios": [s for s in doc["scenarios"] if s["id"] in ids],
            "results": [r for r in doc["results"] if (r.get("interleave") or {}).get("id") in ids]}


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x * 100:.1f}%"


def _half(point: float, lo: float, hi: float) -> float:
    return (hi - lo) / 2 / point


def aa_pairs(doc_noise: list[dict[str, Any]],
             ms: dict[tuple[str, str | None], Measurement]) -> tuple[list[str], bool]:
    """The A/A pairs' ratios and CI widths; a pair is matched with its case's measurement in
    the same environment, so a history file names the release of each pair."""
    lines, ok = [], True
    rows = []
    for n in doc_noise:
        if not n.get("interleave") or n.get("arrival"):          # the patterns: arrival_patterns
            continue
        m = ms.get((n["case_id"], n.get("env_id")))
        median = m.median if m else None
        half = (n["ci_high"] - n["ci_low"]) / 2 / n["ratio"]
        name = f"{n['case_id']} (TF {m.tensorflow})" if m else n["case_id"]
        rows.append((name, median, n["ratio"], half))
    big = [r for r in rows if r[1] is not None and r[1] >= 1e-3]
    bad = [r for r in big if abs(r[2] - 1) > 0.05 or r[3] > 0.05]
    ok = not bad and bool(big)
    lines.append(f"A/A pairs: {len(rows)} (of cases >= 1 ms: {len(big)}); ratios {min(r[2] for r in rows):.3f}–"
                 f"{max(r[2] for r in rows):.3f}; CI half-width median {_pct(statistics.median(r[3] for r in rows))}, "
                 f"max {_pct(max(r[3] for r in rows))}" if rows else "A/A pairs: none")
    lines.append(f"  cases >= 1 ms outside ±5% or wider than ±5%: {len(bad)}"
                 + "".join(f"\n    {c}: median {m * 1e3:.2f} ms, ratio {r:.3f} ±{_pct(h)}" for c, m, r, h in bad))
    return lines, ok


def arrival_patterns(doc: dict[str, Any]) -> tuple[list[str], bool]:
    """Per per-request pattern: its A/A pairs' p50 ratios (target within ±5%) and p99
    ratios with their CI widths, and the p99 CI widths of its results."""
    noise: dict[str, list[dict[str, Any]]] = defaultdict(list)
    results: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for n in doc.get("noise") or []:
        if n.get("arrival"):
            noise[n["arrival"]].append(n)
    for r in doc.get("results") or []:
        if r.get("arrival") and r.get("status") == "ok" and (r.get("timing") or {}).get("tail"):
            results[r["arrival"]["id"]].append(r)
    ids = sorted(set(noise) | set(results))
    if not ids:
        return ["arrival patterns: no arrival data (back to back only)"], True
    lines, ok = [f"arrival patterns: {len(ids)}"], True
    for pid in ids:
        pairs, rs = noise[pid], results[pid]
        p50 = [n["ratio"] for n in pairs]
        bad = [n for n in pairs if abs(n["ratio"] - 1) > 0.05]
        ok &= bool(pairs) and not bad
        p99 = [n["p99"] for n in pairs if n.get("p99")]
        p99_half = [_half(x["ratio"], x["ci_low"], x["ci_high"]) for x in p99]
        tails = [r["timing"]["tail"] for r in rs]
        widths = [(t["p99"]["ci_high"] - t["p99"]["ci_low"]) / t["p99"]["value"] for t in tails
                  if t["p99"]["ci_low"] is not None and t["p99"]["ci_high"] is not None and t["p99"]["value"] > 0]
        unbounded = len(tails) - len(widths)
        lines.append(f"  {pid} ({words(pid)}): {len(rs)} results, {len(pairs)} A/A pairs; p50 ratios "
                     + (f"{min(p50):.3f}–{max(p50):.3f}, outside ±5% (the target): {len(bad)}" if p50 else
                        "none (target missed: no A/A pair)"))
        lines.append("    p99: A/A ratios " + (f"{min(x['ratio'] for x in p99):.3f}–{max(x['ratio'] for x in p99):.3f}, "
                                              f"CI half-width median {_pct(statistics.median(p99_half))}, "
                                              f"max {_pct(max(p99_half))}" if p99 else "none")
                     + "; results' CI width (relative to the p99) "
                     + (f"median {_pct(statistics.median(widths))}, max {_pct(max(widths))}" if widths else "–")
                     + (f"; {unbounded} with too few requests for an upper bound" if unbounded else ""))
        lines += [f"    {n['case_id']}: p50 ratio {n['ratio']:.3f}" for n in bad]
    return lines, ok


def published(ds: Dataset) -> list[tuple[str, float, bool]]:
    """(what, relative CI half-width, paired) of every speedup the pages show."""
    out = []
    for topic in ds.topic_names():
        for cr in ds.claim_results(topic):
            for ch in cr.checks:
                if ch.ratio:
                    out.append((f"claim {topic}/{cr.id} {ch.scenario.key}", ch.ratio.rel_halfwidth, ch.ratio.paired))
        for rec in ds.recommendations(topic):
            if rec.speedup and rec.best != rec.default:
                out.append((f"recommendation {topic} {rec.scenario.key}", rec.speedup.rel_halfwidth, rec.speedup.paired))
        for s in ds.settings_speedups(topic):
            if s.ratio and not s.is_baseline:
                out.append((f"settings {s.measurement.case_id}", s.ratio.rel_halfwidth, s.ratio.paired))
    return out


def must_agree(ds: Dataset) -> tuple[list[str], bool]:
    """The topics' negative controls (``controls:`` in their YAML): settings groups that
    must measure the same, e.g. threads=<cores> against the default on this runner."""
    lines, ok = [], True
    gaps: list[float] = []
    for runner in controls_by_runner(ds):
        gaps += runner.gaps
        for res in runner.results:
            r = res.ratio
            good = abs(r.point - 1) <= 0.05
            ok &= good
            lines.append(f"  {res.measured.case_id}: {r.point:.3f} [{r.low:.3f}, {r.high:.3f}]"
                         f"{' paired' if r.paired else ' UNPAIRED'}{'' if good else '  <-- outside ±5%'}"
                         f"{'  (control failed)' if res.failed else ''}")
    if not lines:
        return ["settings that must agree: none measured"], True
    # Each control is two worker processes with the same settings: how far apart they land is
    # a bias of the processes themselves (memory layout, thread placement), which the rounds,
    # all in one pair of processes, cannot see and measuring longer cannot remove.
    spread = (f"  two processes with the same settings differ by: median {statistics.median(gaps):.1%}, "
              f"max {max(gaps):.1%} ({len(gaps)} controls)")
    return ["settings that must measure the same (the topics' controls; target: within ±5%):", *lines, spread], ok


def settling(doc: dict[str, Any]) -> list[str]:
    """How many cases left their scenario's rounds early (their CI was already tight), and
    the rounds the cases got."""
    total = {s["id"]: s["rounds"] for s in doc["scenarios"]}
    taken = [(len(r["timing"]["rounds"]), total[r["interleave"]["id"]]) for r in doc["results"]
             if (r.get("timing") or {}).get("rounds") is not None and r.get("interleave")
             and r["interleave"]["id"] in total]
    if not taken:
        return []
    early = sum(1 for n, of in taken if n < of)
    counts = [n for n, _ in taken]
    return [(f"cases that left the rounds early: {early} of {len(taken)}; rounds per case: median "
            f"{statistics.median(counts)}, min {min(counts)}, max {max(counts)}")]


def hygiene(doc_scenarios: list[dict[str, Any]]) -> list[str]:
    by_topic: dict[str, float] = defaultdict(float)
    for s in doc_scenarios:
        by_topic[s["topic"]] += s["seconds"]
    # A scenario that ran no rounds (its cases not available in that TensorFlow) lasts a few
    # milliseconds: the others' share of so short a window says nothing about the machine.
    ran = [s for s in doc_scenarios if s["rounds"]]
    flagged = [s for s in ran if s.get("loaded")]
    shares = [s["others_share"] for s in ran if s.get("others_share") is not None]
    lines = [(f"scenarios: {len(doc_scenarios)} ({len(doc_scenarios) - len(ran)} ran no rounds), "
             f"flagged (others used > 10% of the cores): {len(flagged)} of {len(ran)}; "
             f"others' share median {_pct(statistics.median(shares)) if shares else '–'}, "
             f"max {_pct(max(shares)) if shares else '–'}"),
             (f"rounds per scenario: median {statistics.median(s['rounds'] for s in doc_scenarios) if doc_scenarios else 0}; "
             f"stopped by: {dict(sorted(Counter(s['stopped_by'] for s in doc_scenarios).items()))}"),
             "cost: " + ", ".join(f"{t} {v / 60:.1f} min" for t, v in sorted(by_topic.items()))
             + f"; total {sum(by_topic.values()) / 60:.1f} min"]
    probes = [p for s in doc_scenarios for p in (s["before"].get("probe_ms"), s["after"].get("probe_ms")) if p]
    lines.append(f"host probe: median {statistics.median(probes):.2f} ms, range {min(probes):.2f}-{max(probes):.2f} ms "
                 f"({len(probes)} probes)" if probes else "host probe: not recorded (scenarios measured before it)")
    return lines


def processes(doc: dict[str, Any]) -> str:
    """How many worker processes per settings group the scenarios ran in (their interleave
    records; absent: one)."""
    per: dict[str, int] = {}
    for r in doc["results"]:
        if r.get("interleave"):
            per[r["interleave"]["id"]] = int(r["interleave"].get("processes", 1))
    counts = Counter(per.values())
    return ("worker processes per settings group: "
            + ", ".join(f"{k} in {n} scenario{'s' if n != 1 else ''}" for k, n in sorted(counts.items())))


def budgets(doc: dict[str, Any]) -> str:
    """How much time the scenarios were given: the profile's budget times their records'
    ``budget_scale`` (absent: 1, `tfperf run --budget-scale`)."""
    counts = Counter(float(s.get("budget_scale", 1)) for s in doc["scenarios"])
    return ("time budget: " + ", ".join(f"{k:g}x the profile's in {n} scenario{'s' if n != 1 else ''}"
                                        for k, n in sorted(counts.items())))


CLEAR = {Finding.FASTER, Finding.SLOWER, Finding.SAME}


def twice(ds: Dataset) -> tuple[list[str], bool]:
    """The speedups of the scenarios this file holds two runs of (``analyse.repeats_by_runner``)."""
    runners = repeats_by_runner(ds)
    if not runners:
        return ["measured twice: no scenario of this file was measured twice with the same code"], True

    def line(rr: RunnerRepeats) -> str:
        n = len(rr.pairs)
        return (f"{n} speedups, {rr.agreeing} within ±10% ({_pct(rr.agreeing / n)}), typical change "
                f"{_pct(rr.typical)}, second inside the first's interval {rr.inside} ({_pct(rr.inside / n)}); "
                f"run-to-run spread of the log speedup (RMS) {_pct(rr.spread)}, the intervals explain {_pct(rr.explained)}; "
                f"clear findings the other run repeated {rr.repeated} of {rr.clear}, contradicted {rr.contradicted}")

    rr = runners[0]
    share = rr.agreeing / len(rr.pairs)
    head = ("measured twice (the two newest runs of each scenario measured again, same code and settings; "
            "target: >= 90% within ±10%): ")
    lines = [head + line(rr)]
    by_topic: dict[str, list[Any]] = defaultdict(list)
    for p in rr.pairs:
        by_topic[p.later.topic].append(p)
    lines += [f"  {topic}: {line(RunnerRepeats(rr.runner, tuple(ps)))}" for topic, ps in sorted(by_topic.items())]
    w = rr.largest
    lines.append(f"  largest change: {w.later.case_id} ({w.later.version}) {w.before.point:.3f} -> {w.after.point:.3f}")
    lines.append("  " + host_line(rr))
    contra = [p for p in rr.pairs if p.contradicted]
    lines.append(f"  findings (each run judged by the pages' rule): of {rr.clear} clear ones (faster, slower, the same), "
                 f"the other run repeated {rr.repeated} ({_pct(rr.repeated / rr.clear if rr.clear else None)}; "
                 f"target >= 90%), contradicted {rr.contradicted} (target <= 1%), found the rest unclear")
    lines += [f"    {p.later.case_id} ({p.later.version}): {p.findings[0]} -> {p.findings[1]} "
              f"({p.before.point:.3f} -> {p.after.point:.3f})" for p in contra[:10]]
    good = rr.clear > 0 and rr.repeated >= 0.9 * rr.clear and rr.contradicted <= 0.01 * rr.clear
    return lines, share >= 0.9 and good


def host_line(rr: RunnerRepeats) -> str:
    """How much longer the second runs' hosts took on the host probe than the first runs'."""
    probed, runs = rr.probed, rr.scenarios
    if rr.host is None:
        return (f"host probe (second runs over first): timed in both runs of {len(probed)} of the {runs} scenarios, "
                "too few to compare the runs' hosts")
    ratios = sorted(statistics.median(b) / statistics.median(a) for a, b in probed)
    return (f"host probe (median of the second runs' probes over the first runs'): {rr.host:.2f}x, over {len(probed)} "
            f"of {runs} scenarios; per scenario {ratios[0]:.2f}x-{ratios[-1]:.2f}x (one probe is a moment)")


def again(ds: Dataset, other: Dataset) -> tuple[list[str], bool]:
    """Speedups of each case over its scenario's baseline in two runs, and claim verdicts."""
    def speedups(d: Dataset) -> dict[str, float]:
        by = {m.case_id: m for m in d.current}
        out = {}
        for m in d.current:
            base = by.get(m.interleave.baseline if m.interleave else "")
            if base is not None and base is not m and base.ok and m.ok:
                out[m.case_id] = d.cache.speedup(base, m).point
        return out

    a, b = speedups(ds), speedups(other)
    common = sorted(set(a) & set(b))
    within = [c for c in common if abs(a[c] / b[c] - 1) <= 0.10]
    share = len(within) / len(common) if common else 0.0
    flips = []
    for topic in ds.topic_names():
        for cr in ds.claim_results(topic):
            ocr = other.claim_result(topic, cr.id)
            if ocr is None:
                continue
            theirs = {ch.scenario.key[1:]: ch.finding for ch in ocr.checks}     # the key without the runner
            for ch in cr.checks:
                f2 = theirs.get(ch.scenario.key[1:])
                # a flip: two clear findings that differ (faster, slower, the same)
                if f2 is not None and f2 != ch.finding and {ch.finding, f2} <= CLEAR:
                    flips.append(f"{topic}/{cr.id} {ch.scenario.key}: {f2} -> {ch.finding}")
    ok = share >= 0.9 and not flips
    lines = [f"reproducibility: {len(within)} of {len(common)} speedups agree within ±10% ({_pct(share)}; target >= 90%)",
             f"  comparisons whose clear finding changed (faster, slower, the same): {len(flips)}", *[f"    {f}" for f in flips]]
    failed = [line.split(":")[0].strip() for line in must_agree(other)[0] if "(control failed)" in line]
    lines.append(f"  controls that failed in the other run: {len(failed)}"
                 + (" (" + "; ".join(failed) + "): the settings claims of those scenarios are unclear there"
                    if failed else ""))
    worst = sorted(common, key=lambda c: -abs(a[c] / b[c] - 1))[:5]
    lines += ["  largest differences: " + "; ".join(f"{c} {b[c]:.3f} -> {a[c]:.3f}" for c in worst)] if worst else []
    return lines, ok


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default=str(ROOT / "data"))
    p.add_argument("--snippets", default=str(ROOT / "snippets"))
    p.add_argument("--runner", default="linux-x86_64-2core-intel-amx", help="the runner label (data/results/RUNNER/)")
    p.add_argument("--profile", default="full")
    p.add_argument("--again", metavar="DIR", help="a second run's data directory, for reproducibility")
    p.add_argument("--again-runner", metavar="LABEL",
                   help="the second run's runner label (default: --runner), e.g. another runner that may be "
                        "the same CPU; with it --again defaults to --data")
    args = p.parse_args(argv)
    path, doc, ds = runner_file(args.data, args.snippets, args.runner, args.profile)
    ms = {(m.case_id, m.env_id): m for m in sorted(ds.measurements, key=lambda m: m.finished)}   # the newest
    ok = True
    stands = standing(doc)
    again_n = len(doc["scenarios"]) - len(stands["scenarios"])
    print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {len(doc['results'])} results, "
          f"{len(doc['scenarios'])} scenarios" + (f"; {again_n} of them measured again since, so below: "
                                                f"{len(stands['results'])} results, {len(stands['scenarios'])} scenarios"
                                                if again_n else ""))
    doc = stands
    lines, good = aa_pairs(doc["noise"], ms)
    ok &= good
    print("\n".join(lines))
    pub = published(ds)
    halves = [h for _, h, _ in pub]
    med = statistics.median(halves) if halves else float("inf")
    ok &= med <= 0.03
    print(f"published speedups: {len(pub)} ({sum(1 for *_, p in pub if p)} paired); CI half-width median "
          f"{_pct(med)} (target <= 3%), 90th percentile {_pct(sorted(halves)[int(0.9 * len(halves))] if halves else None)}, "
          f"max {_pct(max(halves) if halves else None)}")
    lines, good = must_agree(ds)
    ok &= good
    print("\n".join(lines))
    print("\n".join(hygiene(doc["scenarios"]) + [processes(doc), budgets(doc)] + settling(doc)))
    lines, good = arrival_patterns(doc)
    ok &= good
    print("\n".join(lines))
    lines, good = twice(ds)
    ok &= good
    print("\n".join(lines))
    if args.again or args.again_runner:
        *_, other = runner_file(args.again or args.data, args.snippets, args.again_runner or args.runner, args.profile)
        lines, good = again(ds, other)
        ok &= good
        print("\n".join(lines))
    print("all targets met" if ok else "some targets missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
