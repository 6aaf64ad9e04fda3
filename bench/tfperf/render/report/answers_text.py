"""``tfperf answers``: every topic's questions and their answers as terminal text, from the
same analysis as the pages' first screen (:func:`tfperf.analyse.question_answers`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...analyse import RULE, ClaimAnswer, Dataset, QuestionAnswer, question_answers


def report(ds: Dataset, topics: Sequence[str] = ()) -> str:
    """The question, its lead (Yes, No, It depends, Unclear), and one line per claim and
    runner, naming the hardware."""
    lines = [f"How to read the findings: {RULE}", ""]
    for topic in topics or ds.topic_names():
        info = ds.topics.get(topic)
        answers = question_answers(ds, topic)
        if not answers:
            continue
        lines.append(f"== {info.title if info else topic} ({topic})")
        for qa in answers:
            lines += question_lines(qa)
            if qa.note:
                lines.append(f"   {qa.note}")
        lines.append("")
    return "\n".join(lines)


def question_lines(qa: QuestionAnswer, after: Callable[[ClaimAnswer], list[str]] | None = None) -> list[str]:
    """A question, its lead and each runner's sentence, as the terminal shows them, then
    the arrival pattern it is answered under and what that pattern changes; ``after``
    gives the lines under each claim's sentences (what the guide found beside it)."""
    lines = [f"Q: {qa.ask}", *([f"A: {qa.lead_text()}"] if qa.lead else [])]
    for c in qa.claims:
        lines += [f"   [{r.hardware}] {c.sentence(r)}." for r in c.runners]
        if after is not None and c.runners:
            lines += after(c)
    return [*lines, *([f"   {qa.arrival_text}"] if qa.arrival else []),
            *(f"   How requests arrive changes the answer: {change}." for change in qa.changes),
            *(f"   Accuracy: {a}." for a in qa.accuracy)]
