"""What a page answers first (the analysis is :mod:`tfperf.analyse.views.answers` and
:mod:`tfperf.analyse.views.advice`)::

    <!-- tfperf:answers TOPIC -->   the top of a topic page: each question of its YAML, the
                                    answer's lead (Yes / No / It depends / Unclear), then
                                    each claim on each runner in the most detailed form
                                    that fits a phone's first screen (:mod:`.first_screen`),
                                    the hardware, the rule
    <!-- tfperf:questions -->       the top of the home page: every topic's questions, each
                                    with a one-line answer linking to its page
    <!-- tfperf:vocabulary -->      the words, their symbols and the rules that decide them
    <!-- tfperf:dothis TOPIC -->    the "Do this" box at the top of a topic page

The "Do this" box gives the answer first, computed from the data by
:func:`tfperf.analyse.views.advice.advise` (the call to use), or for a topic that declares
``baseline_settings`` (cpu_threads) by :func:`tfperf.analyse.views.advice.advise_settings`:
the setting to change, or to keep TensorFlow's defaults, then each one-knob choice against
the defaults on each runner, in the vocabulary's words (count, range, exceptions named).

Under it, what changed since the source: each figure a source reported (quoted in
``docs/sources/<topic>.yaml``, credited with its link and licence) beside today's finding on
the claim that tests it (:func:`tfperf.analyse.views.answers.then_now`), in the words every
other place uses::

    2019, “Why does keras model predict slower after compile?” (Stack Overflow, CC BY-SA 4.0):
    compile() made predict() 30× slower → today (TensorFlow 2.21, 2-core Intel Xeon (AMX)):
    does not hold: the same in 28 of 30 scenarios (0.96×–1.01×); ...
"""

from __future__ import annotations

import re
from enum import IntEnum
from functools import partial

from ...analyse import (
    RULE,
    SUMMARY_RULE,
    VERDICT_RULE,
    WORDS,
    Choice,
    ClaimAnswer,
    Dataset,
    Finding,
    Origin,
    QuestionAnswer,
    RunnerAnswer,
    SettingsAdvice,
    ThenNow,
    advise,
    advise_settings,
    counted_text,
    hardware_name,
    listing,
    question_answers,
    summary_text,
    topic_then_now,
)
from ..page.context import Context, Directive, badge, no_results, stated
from ..page.html import Markup, admonition, element, h, join, link, times
from .first_screen import FIRST_SCREEN_PX, GLANCE_CHARS, first_fitting


def _lead(qa: QuestionAnswer) -> Markup:
    return element("strong", qa.lead_text())


def _sentence_start(text: str) -> str:
    """The finding's own word capitalised where it opens a sentence ("whether" -> "Whether");
    a code name (mixed_float16, model(x)) is left as written."""
    return "W" + text[1:] if text.startswith("whether ") else text


def _hardware(qa: QuestionAnswer) -> str:
    return listing(list(dict.fromkeys(r.hardware for c in qa.claims for r in c.runners)))


class OneClaim(IntEnum):
    """The forms of a question's answer with one claim, the most detailed first
    (:func:`answer_form` shows the first that fits a phone's first screen)."""

    SENTENCES = 0   # each machine's sentence: "On the Xeon (AMX): jit_compile=True is slower than ..."
    LEADING = 1     # each machine's leading finding, the cases where it depends named (:func:`leading`)
    COUNTED = 2     # the same, those cases counted where no shared setting names them ("slower in 5")


class SeveralClaims(IntEnum):
    """The forms of a question's answer with several claims, one line per claim, the most
    detailed first."""

    PER_MACHINE = 0  # each machine's brief finding: "Xeon (AMX): faster in 3 of 4 (…); EPYC Zen 3: …"
    NAMED = 1        # each finding once, with the machines that share it: "faster (…) on Xeon (AMX) and …"
    EVERY = 2        # the same, "on all 4 machines" where every machine shares it
    COUNTED = 3      # how many machines give each finding: "slower (…) on 3 of 5 machines", names in the tooltip


def _answer(qa: QuestionAnswer, topic: str) -> Markup:
    return answer_form(qa, topic)[1]


def answer_form(qa: QuestionAnswer, topic: str, budget: float = FIRST_SCREEN_PX) -> tuple[int, Markup]:
    """The answer in the most detailed of its forms (:class:`OneClaim`, :class:`SeveralClaims`)
    whose section, the question and the notes under it included, fits ``budget`` on a phone
    (:mod:`.first_screen`), and that form. A claim on one machine has one form: its sentence
    (one claim) or its brief finding (several)."""
    if not any(c.runners for c in qa.claims):
        return 0, element("p", "Not measured yet.", class_="tfperf-nodata")
    rest = join([element("p", qa.ask, class_="tfperf-q"), *_notes(qa)])     # the rest of its section
    if len(qa.claims) == 1:
        forms = list(OneClaim)[:1 if len(qa.claims[0].runners) == 1 else None]
        return first_fitting((partial(_one_claim, qa, topic, f) for f in forms), rest, budget)
    return first_fitting((partial(_several_claims, qa, topic, f) for f in SeveralClaims), rest, budget)


def _one_claim(qa: QuestionAnswer, topic: str, form: OneClaim) -> Markup:
    """The lead and one line per machine: its sentence, or (from :attr:`OneClaim.LEADING`) its
    leading finding with the sentence in its tooltip."""
    c = qa.claims[0]
    lead = _lead(qa) if qa.lead else Markup("")
    if form >= OneClaim.LEADING:
        scope = f"brief {qa.arrival}" if qa.arrival else "brief"
        lines = [join([f"On the {r.short}: ",
                       element("span", stated(leading(r, counted=form >= OneClaim.COUNTED), topic, c.claim_id,
                                              r.runner, r.releases, r.finding, scope=scope), title=c.sentence(r)), "."])
                 for r in c.runners]
    else:
        # After the lead ("Unclear."), a sentence starts a sentence: "Whether ...", not "whether ...".
        first = _sentence_start if qa.lead and len(c.runners) == 1 else str
        lines = [join([f"On the {r.short}: " if len(c.runners) > 1 else "",
                       stated(first(c.sentence(r)), topic, c.claim_id, r.runner, r.releases, r.finding,
                              scope=qa.arrival or "all"), "."])
                 for r in c.runners]
        if len(lines) == 1:
            return element("p", join([lead, " " if qa.lead else "", lines[0]]), class_="tfperf-a")
    return join([element("p", lead, class_="tfperf-a") if qa.lead else "",
                 element("ul", join(element("li", x) for x in lines), class_="tfperf-a-lines")])


def _several_claims(qa: QuestionAnswer, topic: str, form: SeveralClaims) -> Markup:
    """The lead, then one line per claim with every machine's finding in ``form``."""
    lead = _lead(qa) if qa.lead else Markup("")
    items = []
    scope = f"brief {qa.arrival}" if qa.arrival else "brief"
    for c in qa.claims:
        head = f"{qa.head(c)}: "
        if len(c.runners) > 1 and form >= SeveralClaims.NAMED:
            items.append(element("li", join([element("strong", head), _grouped(c, topic, scope, form), "."])))
            continue
        parts = [join([f"{r.short}: " if len(c.runners) > 1 else "",
                       element("span", stated(r.brief, topic, c.claim_id, r.runner, r.releases, r.finding,
                                              scope=scope),
                               title=r.text)]) for r in c.runners]
        items.append(element("li", join([element("strong", head), join(parts, "; "), "."])))
    against_all = f"{qa.against()}:" if qa.against() else ""
    head = join([lead, " " if qa.lead and against_all else "", against_all])
    return join([element("p", head, class_="tfperf-a") if qa.lead or against_all else "",
                 element("ul", join(items), class_="tfperf-a-lines")])


def alone_brief(r: RunnerAnswer) -> str:
    """A runner's brief answer cut to its leading finding and count ("faster in 2 of 4
    (1.26×–1.36×)"; "depends on the case"): the first screen's share of it."""
    return str(r.finding) if r.finding == Finding.DEPENDS else r.brief.split("; ")[0]


def leading(r: RunnerAnswer, counted: bool = False) -> str:
    """A runner's answer to one claim without the claim's words: its leading count
    (:func:`alone_brief`), or, where it depends on the case, on which ("depends on the case:
    faster for MLP (1.25×–1.45×); slower for MobileNetV3Small, …"), its scenarios that
    could not tell only counted ("unclear in 2"): which they are is in the tooltip and the
    claims table. ``counted``: the scenarios listed one by one are counted too (the
    runner's ``counted``: "faster for MLP (…); slower in 5")."""
    if r.finding == Finding.DEPENDS and counted and r.counted:
        return f"{r.finding}: {r.counted}"
    return f"{r.finding}: {r.sides}" if r.finding == Finding.DEPENDS and r.sides else alone_brief(r)


def _grouped(c: ClaimAnswer, topic: str, scope: str, form: SeveralClaims) -> Markup:
    """A claim's finding per group of runners that share it in every case, or a runner's
    own counts where it stands alone; each runner's name is marked with its finding, and
    its full answer (with the exceptions' names) is its tooltip. :attr:`SeveralClaims.COUNTED`:
    how many machines share each finding, their names in the tooltip."""
    if form >= SeveralClaims.COUNTED:
        return join([_counted(finding, runners, figures, others, len(c.runners))
                     for finding, runners, figures, others in c.by_machines()], "; ")
    parts = []
    for finding, runners, figures in c.by_finding():
        names = [element("span", stated(r.short, topic, c.claim_id, r.runner, r.releases, r.finding, scope=scope),
                         title=r.text) for r in runners]
        if len(names) == 1:       # alone: its leading count ("faster in 2 of 4 (…)"), the rest in its tooltip
            parts.append(join([alone_brief(runners[0]), " on ", names[0]]))
            continue
        names_text = join([join(names[:-1], ", "), " and ", names[-1]])
        if len(runners) == len(c.runners) and form >= SeveralClaims.EVERY:     # every machine: names in the tooltip
            names_text = element("span", f"all {len(runners)} machines",
                                 title="; ".join(f"{r.short}: {r.text}" for r in runners))
        parts.append(join([str(finding), f" ({figures})" if figures else "", " on ", names_text]))
    return join(parts, "; ")


def _counted(finding: Finding, runners: tuple[RunnerAnswer, ...], figures: str,
             others: tuple[Finding, ...], of: int) -> Markup:
    return element("span", counted_text(finding, len(runners), of, figures, others),
                   title="; ".join(f"{r.short}: {r.text}" for r in runners))


def _pattern(qa: QuestionAnswer) -> list[Markup]:
    """For a question answered from a per-request pattern: which one, and each claim whose
    answer differs from back to back, in a sentence."""
    if qa.arrival is None:
        return []
    out = [element("p", qa.arrival_text, class_="tfperf-a-note")]
    if qa.changes:
        out.append(element("p", join([element("strong", "How requests arrive changes the answer: "),
                                      join((f"{c}." for c in qa.changes), " ")]), class_="tfperf-a-change"))
    return out


def _notes(qa: QuestionAnswer) -> list[Markup]:
    """What a question's section says under its answer: the per-request pattern, the
    outputs' accuracy, the question's own note."""
    out = _pattern(qa)
    if qa.accuracy:
        out.append(element("p", join([element("strong", "Accuracy: "), join((f"{a}." for a in qa.accuracy), " ")]),
                           class_="tfperf-a-note"))
    if qa.note:
        out.append(element("p", qa.note, class_="tfperf-a-note"))
    return out


def _measured_on(qa: QuestionAnswer) -> str:
    releases = sorted({r.releases for c in qa.claims for r in c.runners})
    return (f"Measured on: {_hardware(qa)}, with TensorFlow {', '.join(releases)}; "
            "to measure your own machine, see the end of this page.") if qa.hardware else ""


NOT_MEASURED = (" This topic is new: its questions are answered here once it has been measured on the published "
                "runners. The method, the code and the claims below are final, and you can run the comparison "
                "on your own machine now (the notebook, or “Run it yourself”).")


def block_answers(d: Directive, ctx: Context) -> Markup:
    topic = str(d.topic)
    answers = question_answers(ctx.ds, topic)
    if not answers:
        return no_results(ctx.ds, f"Answers for {topic}")
    parts = []
    if not any(c.runners for qa in answers for c in qa.claims):
        parts.append(element("p", join([element("strong", "Not measured yet."), NOT_MEASURED]), class_="tfperf-nodata"))
    for qa in answers:
        body = [element("p", qa.ask, class_="tfperf-q"), _answer(qa, topic), *_notes(qa)]
        parts.append(element("section", join(body), class_="tfperf-qa", id=f"q-{qa.id}"))
    foot = element("p", join([_measured_on(answers[0]), " ", RULE]), class_="tfperf-legend")
    return Markup('<div class="tfperf-answers">' + join(parts) + foot + "</div>")


def block_questions(d: Directive, ctx: Context) -> Markup:
    """Every topic's questions with a one-line answer, linking to the topic's page: the most
    detailed form of the line that a reader takes in at a glance (:data:`GLANCE_CHARS`), or
    the most compact one."""
    items = []
    for topic in ctx.topic_order or tuple(ctx.ds.topic_names()):
        page = ctx.topic_pages is None or topic in ctx.topic_pages
        for qa in question_answers(ctx.ds, topic):
            ask = link(f"{ctx.prefix}topics/{topic}/#q-{qa.id}", qa.ask) if page else qa.ask
            items.append(element("li", join([element("span", ask, class_="tfperf-q"), " ",
                                             element("strong", qa.lead_text()) if qa.lead else "", " ",
                                             qa.one_line(within=GLANCE_CHARS), "."])))
    if not items:
        return no_results(ctx.ds, "Questions")
    return Markup('<div class="tfperf-answers tfperf-questions">' + h(element("ul", join(items))) + "</div>")


def block_vocabulary(d: Directive, ctx: Context) -> Markup:
    """The words and their rules, from the one vocabulary (``analyse.effects``)."""
    words = join(element("span", f"{w.symbol} {w.text}", class_=f"tfperf-verdict tfperf-{w.css}")
                 for w in WORDS.values() if w.css != "nodata")
    return join([element("p", words, class_="tfperf-vocabulary"),
                 element("ul", join(element("li", rule) for rule in (RULE, SUMMARY_RULE, VERDICT_RULE)))])


# -- the "Do this" box --------------------------------------------------------------------

def block_dothis(d: Directive, ctx: Context) -> Markup:
    topic = str(d.topic)
    ds = ctx.ds
    info = ds.topics.get(topic)
    body = (settings_advice_body(ds, topic) if info is not None and info.baseline_settings
            else _variant_body(ds, topic))
    if body is None:
        return no_results(ds, f"Advice for {topic}")
    return admonition("tip", "Do this", join([body, then_now_html(ctx, topic)]))


def _variant_body(ds: Dataset, topic: str) -> Markup | None:
    a = advise(ds, topic)
    if a is None:
        return None
    default = ds.label(topic, a.default)
    if a.use is None or not a.runners:
        return Markup(f"<p>Keep <strong>{h(default)}</strong>: in most scenarios measured no other variant with "
                      f"correct output is faster.</p>")
    per = ":" if a.per == "call" else f". Per {a.per}, each call's fixed start-up apart:"
    lines = [element("li", join([element("strong", hardware_name(ds.runners.get(r.runner), r.runner)), ": ",
                                 f"typically {times(r.typical)}, " if r.typical else "", r.text]))
             for r in a.runners]
    body = [Markup(f"<p>Use <strong>{h(ds.label(topic, a.use))}</strong> instead of {h(default)}{h(per)}</p>"),
            element("ul", join(lines))]
    if a.per_call:
        first = a.per_call[0]
        body.append(Markup(f"<p><small>Per call of the fewest {h(a.per)}s measured, its start-up included: "
                           f"{h(first.text)}"
                           f"{' (on the ' + h(hardware_name(ds.runners.get(first.runner), first.runner)) + ')' if len(a.per_call) > 1 else ''}"
                           ".</small></p>"))
    if a.level_with:
        level = ", ".join(f"{ds.label(topic, v)} (in {n})" for v, n in a.level_with.most_common())
        body.append(Markup(f"<p>Where it is the fastest, these are not clearly slower: {h(level)}.</p>"))
    return join(body)


def _label(ds: Dataset, topic: str, c: Choice) -> str:
    return ds.setting_label(topic, c.setting, c.value)


def _baseline(ds: Dataset, a: SettingsAdvice) -> str:
    return ", ".join(ds.setting_label(a.topic, k, v) for k, v in a.baseline.items())


def _choice(ds: Dataset, a: SettingsAdvice, c: Choice) -> Markup:
    info = ds.topics[a.topic]
    everywhere = len(ds.runners) == 1          # one machine published: naming it on every line says nothing
    parts = []
    for r in c.runners():
        text = summary_text(c.summary(r, info.value_label), info.param_values, label=info.value_label)
        who = "" if everywhere else f"on the {hardware_name(ds.runners.get(r), r)}, "
        parts.append(f"{who}{text}")
    return element("li", join([element("strong", _label(ds, a.topic, c)), ": ", "; ".join(parts), "."]))


def settings_advice_body(ds: Dataset, topic: str) -> Markup | None:
    """The box's body, or None when the topic has no settings results."""
    a = advise_settings(ds, topic)
    if a is None:
        return None
    use = a.use
    if use is not None:
        knob = ds.setting_label(a.topic, use.setting, a.baseline[use.setting])
        lead = (f"<p>Set <strong>{h(_label(ds, topic, use))}</strong> instead of {h(knob)}, the rest as "
                "installed. Each setting against the defaults, one changed at a time:</p>")
    else:
        lead = (f"<p>Keep <strong>{h(_baseline(ds, a))}</strong>: no single setting is faster in most scenarios "
                "without being slower in others. Each setting against the defaults, one changed at a time:</p>")
    return join([Markup(lead), element("ul", join(_choice(ds, a, c) for c in a.choices))])


# -- what changed since the source --------------------------------------------------------

_CODE = re.compile(r"`([^`]+)`")


def code_spans(text: str) -> Markup:
    """Escaped text with `backticks` as <code>."""
    return Markup(_CODE.sub(lambda m: f"<code>{m.group(1)}</code>", str(h(text))))


def credit(origin: Origin) -> Markup:
    """The source named and credited: its title (linked when its address is known), its
    publisher and licence. A source without an address is named by its title alone, with
    the date the line starts with."""
    title = f"“{origin.title}”"
    named = link(origin.url, title, rel="noopener") if origin.url else element("em", title)
    extra = [x for x in (origin.publisher, origin.licence) if x]
    return join([named, f" ({', '.join(extra)})" if extra else ""])


def _today(t: ThenNow) -> Markup:
    a = t.answer
    if a is None or not a.runners:
        return join([element("strong", "today"), ": no results yet"])
    parts = [join([element("strong", "today"), f" (TensorFlow {r.releases}, {r.hardware}): ", badge(r.verdict),
                   f", {a.candidate}{' ' + a.scope if a.scope else ''} against {a.baseline}: ",
                   stated(r.text, a.topic, a.claim_id, r.runner, r.releases, r.finding)])
             for r in a.runners]
    return join(parts, "; ")


def figure_line(t: ThenNow) -> Markup:
    """"compile() made predict() 30× slower (context) → today (TensorFlow 2.21, hardware):
    does not hold: the same in ..."; the verbatim quote is its tooltip."""
    fig = t.figure
    then = element("span", code_spans(fig.then), class_="tfperf-then", title=f"“{fig.quote}”")
    context = element("span", f" ({fig.context})", class_="tfperf-then-context") if fig.context else ""
    return join([then, context, " → ", _today(t), "."])


def then_now_html(ctx: Context, topic: str) -> Markup:
    """The lines for ``topic``, one per source (its figures under it), or nothing when its
    sources file names no figure."""
    lines = topic_then_now(ctx.ds, topic, ctx.sources)
    if not lines:
        return Markup("")
    by_origin: dict[Origin, list[ThenNow]] = {}
    for t in lines:
        by_origin.setdefault(t.figure.origin, []).append(t)
    items = []
    for origin, ts in by_origin.items():
        head = join([element("strong", origin.date), ", ", credit(origin), ": "])
        if len(ts) == 1:
            items.append(element("li", join([head, figure_line(ts[0])])))
        else:
            items.append(element("li", join([head, element("ul", join(element("li", figure_line(t)) for t in ts))])))
    return join([Markup('<p class="tfperf-since-title">What changed since the source '
                        '<span class="tfperf-since-note">(its figures are quoted: historical, and measured on other '
                        'machines; today’s are this guide’s)</span>:</p>'),
                 element("ul", join(items), class_="tfperf-since")])


ANSWER_BLOCKS = {"answers": block_answers, "questions": block_questions, "vocabulary": block_vocabulary}
__all__ = ["ANSWER_BLOCKS", "OneClaim", "SeveralClaims", "alone_brief", "answer_form", "block_dothis",
           "code_spans", "counted_text", "credit", "figure_line", "leading", "settings_advice_body",
           "then_now_html"]
