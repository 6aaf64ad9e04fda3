"""How much of an answer a phone's first screen holds, and which of its forms to show.

A question's answer can be said in several forms, from the most detailed (each machine's
sentence) to the most compact (how many machines give each finding, their names in a
tooltip). :func:`first_fitting` takes the forms in that order and returns the first whose
section (the question, the lead, one line per claim or machine) fits the first screen of a
phone held upright, 400 × 800 px, by :func:`phone_px`'s estimate, with no line, and no list,
longer than a reader takes in at a glance (:data:`GLANCE_CHARS`, :data:`GLANCE_LINES`). The choice follows the answer's length,
not the number of machines: a seventh runner whose findings are short changes nothing, a
long exception list on two machines is shortened.

The estimate counts characters, not glyphs: a line of the answer list (``ul.tfperf-a-lines``,
0.72rem, line-height 1.36 on a phone: ``docs/assets/tfperf.css``) holds about
:data:`LIST_CHARS`, a paragraph (the question, the lead: 0.8rem, line-height 1.6) about
:data:`TEXT_CHARS`. Both, and :data:`FIRST_SCREEN_PX`, were calibrated on the built site
with Debian's chromium (a section's real height against this estimate, every topic's
questions); the browser test (tests/website/test_answers_site.py) holds the result to the
screen itself.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Iterable

from ..page.html import Markup

LIST_CHARS = 46          # characters in one line of the answer list at 400 px (wrapping's waste included)
LIST_LINE_PX = 20.2      # one such line, its share of the items' margins included
TEXT_CHARS = 40          # characters in one line of a paragraph of the answer (the question, the lead)
TEXT_LINE_PX = 25.6
BLOCK_PX = 6.0           # the margins of each paragraph and list
NOTE = "tfperf-a-note"   # the class of a note under an answer, in the list's size or smaller
# What the first screen leaves for the first question's section: the lowest one starts 205 px down
# (the header bar, a two-line title: train_step), and the estimate is never short (0.74-0.99 of
# the real height over every section, scripts/first_screen.py), so one within this ends on the screen.
FIRST_SCREEN_PX = 800 - 205
# A line a reader takes in at a glance: at most four lines of a phone (a machine's sentence
# with its exceptions named; a claim's findings with the machines that give them). A form
# with a longer line is passed over for the next, which says it shorter: six machines' counts
# on one claim's line are a paragraph, "faster (7.32×–69.3×) on all 6 machines" is not.
GLANCE_CHARS = 4 * LIST_CHARS
# And an answer a reader takes in at a glance: at most this many lines of a phone in all.
# Six machines each given the claim's whole sentence fit the screen, but repeat its words six
# times; each machine's finding alone ("On the Xeon (AMX): faster in all 10 (2.55×–51.2×).")
# says the same in a third of the lines.
GLANCE_LINES = 16

_BLOCK = re.compile(r"<(p|li)\b([^>]*)>(.*?)</\1>", re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def _blocks(section: str) -> list[tuple[str, str, str]]:
    """Each paragraph and list line of ``section``: its tag, its attributes, its text."""
    return [(tag, attrs, html.unescape(_TAG.sub("", inner)).strip()) for tag, attrs, inner in _BLOCK.findall(section)]


def phone_px(section: str) -> float:
    """The estimated height, in px at 400 px wide, of an answer's HTML: each paragraph
    (``<p>``) and list line (``<li>``) by the characters of its text, tooltips left out; a
    note under the answer (:data:`NOTE`, 0.68rem) as a line of the list."""
    total = 0.0
    blocks = 0
    for tag, attrs, text in _blocks(section):
        small = tag == "li" or NOTE in attrs
        chars, line = (LIST_CHARS, LIST_LINE_PX) if small else (TEXT_CHARS, TEXT_LINE_PX)
        total += max(1, math.ceil(len(text) / chars)) * line
        blocks += tag == "p"
    if "<ul" in section:
        blocks += 1
    return total + blocks * BLOCK_PX


def _list_lines(section: str) -> list[int]:
    return [len(text) for tag, _, text in _blocks(section) if tag == "li"]


def longest_line(section: str) -> int:
    """The characters of the longest list line (``<li>``) of ``section``'s text."""
    return max(_list_lines(section), default=0)


def phone_lines(section: str) -> int:
    """The lines of a phone that ``section``'s list takes."""
    return sum(max(1, math.ceil(n / LIST_CHARS)) for n in _list_lines(section))


def first_fitting(forms: Iterable[Callable[[], Markup]], above: str = "",
                  budget: float = FIRST_SCREEN_PX, glance: int = GLANCE_CHARS,
                  lines: int = GLANCE_LINES) -> tuple[int, Markup]:
    """The first of ``forms`` (most detailed first) whose HTML, under ``above`` (the
    question), fits ``budget`` px by :func:`phone_px` with no line longer than ``glance``
    characters and its list in ``lines`` lines of a phone, and its index; the last form where
    none does (the most compact there is)."""
    chosen: tuple[int, Markup] | None = None
    for i, form in enumerate(forms):
        chosen = (i, form())
        if (phone_px(above + chosen[1]) <= budget and longest_line(chosen[1]) <= glance
                and phone_lines(chosen[1]) <= lines):
            return chosen
    if chosen is None:
        raise ValueError("an answer needs at least one form")
    return chosen
