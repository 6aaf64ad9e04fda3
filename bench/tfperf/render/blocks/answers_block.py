"""The reader's questions answered first (the analysis is :mod:`tfperf.analyse.views.answers`)::

    <!-- tfperf:answers TOPIC -->   the top of a topic page: each question of its YAML, the
                                    answer's lead (Yes / No / It depends / Unclear), one
                                    sentence per claim and runner, the hardware, the rule
    <!-- tfperf:questions -->       the top of the home page: every topic's questions, each
                                    with a one-line answer linking to its page
    <!-- tfperf:vocabulary -->      the words, their symbols and the rules that decide them
"""

from __future__ import annotations

from ...analyse import RULE, SUMMARY_RULE, VERDICT_RULE, WORDS, QuestionAnswer, listing, question_answers
from ..page.context import Context, Directive, no_results, stated
from ..page.html import Markup, element, h, join, link


def _lead(qa: QuestionAnswer) -> Markup:
    return element("strong", qa.lead_text())


def _sentence_start(text: str) -> str:
    """The finding's own word capitalised where it opens a sentence ("whether" -> "Whether");
    a code name (mixed_float16, model(x)) is left as written."""
    return "W" + text[1:] if text.startswith("whether ") else text


def _hardware(qa: QuestionAnswer) -> str:
    return listing(list(dict.fromkeys(r.hardware for c in qa.claims for r in c.runners)))


def _answer(qa: QuestionAnswer, topic: str) -> Markup:
    """One claim: the lead and its sentence on each runner. Several claims: the lead, then
    one line per claim with every runner's finding (the first screen holds them all)."""
    if not any(c.runners for c in qa.claims):
        return element("p", "Not measured yet.", class_="tfperf-nodata")
    lead = _lead(qa) if qa.lead else Markup("")
    if len(qa.claims) == 1:
        c = qa.claims[0]
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
    items = []
    for c in qa.claims:
        head = f"{qa.head(c)}: "
        parts = [join([f"{r.short}: " if len(c.runners) > 1 else "",
                       element("span", stated(r.brief, topic, c.claim_id, r.runner, r.releases, r.finding,
                                              scope=f"brief {qa.arrival}" if qa.arrival else "brief"),
                               title=r.text)]) for r in c.runners]
        items.append(element("li", join([element("strong", head), join(parts, "; "), "."])))
    against_all = f"{qa.against()}:" if qa.against() else ""
    head = join([lead, " " if qa.lead and against_all else "", against_all])
    return join([element("p", head, class_="tfperf-a") if qa.lead or against_all else "",
                 element("ul", join(items), class_="tfperf-a-lines")])


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
        body = [element("p", qa.ask, class_="tfperf-q"), _answer(qa, topic), *_pattern(qa)]
        if qa.accuracy:
            body.append(element("p", join([element("strong", "Accuracy: "), join((f"{a}." for a in qa.accuracy), " ")]),
                                class_="tfperf-a-note"))
        if qa.note:
            body.append(element("p", qa.note, class_="tfperf-a-note"))
        parts.append(element("section", join(body), class_="tfperf-qa", id=f"q-{qa.id}"))
    foot = element("p", join([_measured_on(answers[0]), " ", RULE]), class_="tfperf-legend")
    return Markup('<div class="tfperf-answers">' + join(parts) + foot + "</div>")


def block_questions(d: Directive, ctx: Context) -> Markup:
    """Every topic's questions with a one-line answer, linking to the topic's page."""
    items = []
    for topic in ctx.topic_order or tuple(ctx.ds.topic_names()):
        page = ctx.topic_pages is None or topic in ctx.topic_pages
        for qa in question_answers(ctx.ds, topic):
            ask = link(f"{ctx.prefix}topics/{topic}/#q-{qa.id}", qa.ask) if page else qa.ask
            items.append(element("li", join([element("span", ask, class_="tfperf-q"), " ",
                                             element("strong", qa.lead_text()) if qa.lead else "", " ",
                                             qa.one_line(), "."])))
    if not items:
        return no_results(ctx.ds, "Questions")
    return Markup('<div class="tfperf-answers tfperf-questions">' + h(element("ul", join(items))) + "</div>")


def block_vocabulary(d: Directive, ctx: Context) -> Markup:
    """The words and their rules, from the one vocabulary (``analyse.effects``)."""
    words = join(element("span", f"{w.symbol} {w.text}", class_=f"tfperf-verdict tfperf-{w.css}")
                 for w in WORDS.values() if w.css != "nodata")
    return join([element("p", words, class_="tfperf-vocabulary"),
                 element("ul", join(element("li", rule) for rule in (RULE, SUMMARY_RULE, VERDICT_RULE)))])


ANSWER_BLOCKS = {"answers": block_answers, "questions": block_questions, "vocabulary": block_vocabulary}
__all__ = ["ANSWER_BLOCKS"]
