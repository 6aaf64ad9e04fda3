"""The answer layer on the site built from the committed results (data/results):

* every place that states a claim's finding on one runner and release (home's table,
  the topic's answers, claims table and "Do this", the versions strip and table) states
  the same finding with the same figures;
* every finding or verdict badge shows a word of the one vocabulary, and the old words
  are gone;
* (browser) the five questions readers asked, and the first question of every topic added
  since, are answered on the first screen of their page at 400 px, in the words
  ``tfperf answers`` prints, in the form the answer's length chose.
"""

from __future__ import annotations

import re
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path

import pytest
from site_server import serving

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
FIGURE = re.compile(r"\d+(?:\.\d+)?×")
SHARE = re.compile(r"in (?:all )?(\d+|both)(?: of (\d+))?")
OLD_WORDS = ("refuted", "inconclusive", "holds where clear", "refuted where clear")

# The questions the answers issue names, and the topic page whose first screen answers each;
# then the first question of the topics added since (every topic page answers its first on
# its first screen).
QUESTIONS = {
    "predict_vs_call": "what should I use instead, and does compile() matter?",
    "xla_jit": "Should I turn on XLA",
    "cpu_threads": "Do OMP_NUM_THREADS, intra-op threads or TF_ENABLE_ONEDNN_OPTS make CPU inference faster?",
    "serving_formats": "Is it worth freezing, SavedModel, TFLite or ONNX Runtime for CPU serving",
    "train_step": "Is TF2 slower than TF1 for training, and what should I do?",
    "mixed_precision": "Does mixed_bfloat16 make inference or training faster on this CPU",
    "input_pipeline": "Which tf.data options make my training input-bound pipeline faster on a CPU",
}


@pytest.fixture(scope="module")
def site(published_site: Path) -> Path:
    return published_site


class _Stated(HTMLParser):
    """Collects the elements marked ``tfperf-stated`` and the words of finding badges."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stated: list[dict[str, str]] = []
        self.badges: list[str] = []
        self._open: list[tuple[str, dict[str, str], list[str], str]] = []   # (tag, attrs, text, kind)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        classes = a.get("class", "").split()
        kind = "stated" if "tfperf-stated" in classes else "badge" if "tfperf-verdict" in classes else ""
        if kind or self._open:
            self._open.append((tag, a, [], kind))

    def handle_endtag(self, tag: str) -> None:
        if not self._open:
            return
        _t, a, text, kind = self._open.pop()
        joined = "".join(text)
        if self._open:
            self._open[-1][2].append(joined)
        if kind == "stated":
            self.stated.append({**a, "text": a.get("data-text") or joined})
        elif kind == "badge":
            self.badges.append(joined)

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1][2].append(data)


def _pages(site: Path) -> list[Path]:
    """Every page, and the long parts it fetches (render/page/embed.py: the home table's cells)."""
    return [p for p in sorted(site.rglob("*.html")) if not p.relative_to(site).parts[0] in ("assets", "search")]


def _parse(site: Path) -> _Stated:
    parser = _Stated()
    for page in _pages(site):
        parser.feed(page.read_text(encoding="utf-8"))
    return parser


def _signature(text: str) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """What two statements of one finding must share: the figures, and the counts."""
    return tuple(sorted(FIGURE.findall(text))), tuple(sorted(SHARE.findall(text)))


def test_every_statement_of_a_claims_finding_agrees(site: Path) -> None:
    """Fault: one claim's finding stated in words that differ from place to place (a
    claims table says one thing, the versions strip or the first screen another).
    Happens: every statement of a claim's finding on one runner and release (the home
    table, the topic's answers, claims table and "Do this", the versions strip and table)
    names the same finding with the same figures and counts; a brief one (a first screen
    answering several claims at once) the same finding with some of those figures.
    Kept: the words come from one analysis, so a page cannot drift from another."""
    stated = _parse(site).stated
    groups: dict[tuple[str, str, str, str], list[dict[str, str]]] = defaultdict(list)
    for s in stated:
        groups[(s["data-claim"], s["data-runner"], s["data-release"], s.get("data-scope", "all"))].append(s)
    assert groups, "no finding is marked on the site"
    several = [k for k, v in groups.items() if k[3] == "all" and len(v) > 1]
    assert len(several) >= 20, f"only {len(several)} findings are stated in more than one place"
    for key, items in groups.items():
        findings = {s.get("data-finding") for s in items}
        assert len(findings) == 1, f"{key}: {findings}"
        if key[3] == "all":
            signatures = {_signature(s["text"]) for s in items}
            assert len(signatures) == 1, f"{key}: " + " | ".join(s["text"] for s in items)
        elif key[3] == "brief":
            full = groups.get((*key[:3], "all"))
            assert full, f"{key}: stated briefly and nowhere in full"
            assert {s.get("data-finding") for s in full} == findings, key
            figures = set(_signature(full[0]["text"])[0])
            for s in items:
                assert set(FIGURE.findall(s["text"])) <= figures, (key, s["text"], full[0]["text"])
    places = sum(len(v) for v in groups.values())
    print(f"{len(groups)} claim x runner x release findings (and scopes), stated in {places} places; "
          f"{len(several)} of them in two or more places in full")


def test_every_badge_says_a_word_of_the_vocabulary_and_no_old_word_remains(site: Path) -> None:
    from tfperf.analyse.judge.effects import vocabulary

    words = vocabulary()
    badges = _parse(site).badges
    assert badges
    bad = sorted({b for b in badges if b.split(" ", 1)[-1].strip() not in words})
    assert not bad, bad
    for page in _pages(site):
        text = re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8")).lower()
        for word in OLD_WORDS:
            assert not re.search(rf"\b{word}\b", text), f"{page.relative_to(site)}: {word!r}"


@pytest.mark.browser
def test_each_topics_first_question_is_answered_on_the_first_screen_at_400_px(site: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed")
    from playwright.sync_api import sync_playwright

    from tfperf.analyse import analyse, counted_text, question_answers
    from tfperf.render.blocks.answers_block import (
        OneClaim,
        SeveralClaims,
        alone_brief,
        answer_form,
        leading,
    )

    ds = analyse(ROOT / "data" / "results", ROOT / "snippets")
    with serving(site) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        page = browser.new_page(viewport={"width": 400, "height": 800})
        for topic, ask in QUESTIONS.items():
            qa = next(q for q in question_answers(ds, topic) if ask in q.ask)
            page.goto(f"{base}topics/{topic}/", wait_until="load")
            block = page.locator(f"#q-{qa.id}")
            box = block.bounding_box()
            assert box is not None and box["y"] + box["height"] <= 800, (topic, box)
            shown = " ".join(block.inner_text().split())
            assert ask in shown
            if qa.lead:
                assert qa.lead_text() in shown, (topic, qa.lead_text(), shown)
            # the form the page chose for the answer's length (:mod:`tfperf.render.blocks.first_screen`)
            form = answer_form(qa, topic)[0]
            for c in qa.claims:
                if len(qa.claims) > 1 and len(c.runners) > 1 and form >= SeveralClaims.COUNTED:
                    # many machines: each finding once, with how many machines give it
                    for finding, runners, figures, others in c.by_machines():
                        said = counted_text(finding, len(runners), len(c.runners), figures, others)
                        assert said in shown, (topic, said, shown)
                    continue
                if len(qa.claims) > 1 and len(c.runners) > 1 and form >= SeveralClaims.NAMED:
                    # each finding once, with the runners that share it
                    for finding, runners, figures in c.by_finding():
                        if len(runners) == 1:
                            said = f"{alone_brief(runners[0])} on {runners[0].short}"
                        elif len(runners) == len(c.runners) and form >= SeveralClaims.EVERY:
                            said = f"{finding}{f' ({figures})' if figures else ''} on all {len(runners)} machines"
                        else:
                            names = ", ".join(r.short for r in runners[:-1]) + f" and {runners[-1].short}"
                            said = f"{finding}{f' ({figures})' if figures else ''} on {names}"
                        assert said in shown, (topic, said, shown)
                    continue
                for r in c.runners:
                    # one claim: its sentence, or its leading finding (the sentence in its tooltip);
                    # several: each one's brief finding (the rest in its tooltip)
                    said = (r.brief if len(qa.claims) > 1 else c.sentence(r) if form == OneClaim.SENTENCES
                            else leading(r, counted=form >= OneClaim.COUNTED))
                    assert said in shown, (topic, said, shown)
        browser.close()
