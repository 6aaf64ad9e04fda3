"""What the sources a topic revisits reported, read from ``docs/sources/<topic>.yaml``.

A topic page starts from an old question or blog post (its "History" box). Its figures are
quotes, not measurements: they live in a file of their own beside the topic's YAML, one
per topic, so that the "Do this" box can set each one beside today's verdict on the claim
that tests it (:func:`tfperf.analyse.views.answers.then_now`)::

    topic: predict_vs_call
    sources:
      - title: "Why does keras model predict slower after compile?"
        url: https://stackoverflow.com/questions/58378374/    # or null: no address known
        publisher: Stack Overflow
        licence: CC BY-SA 4.0
        date: "2019"                                           # what the line starts with
        figures:
          - claim: compile_slows_predict       # a claim of snippets/predict_vs_call.yaml
            then: "`compile()` made `predict()` 30× slower"   # its finding, in its figures
            quote: "0.9891 sec / 29.785 sec"   # its words, verbatim
            context: "TensorFlow 2.0; 1000 calls on a 4-2-1 Dense model"   # optional

Every mistake (an unknown key, a missing field, a claim the topic does not make) is a
:class:`SourcesFileError` naming the file and the field; the other files still load.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cases import read_yaml
from ..errors import TfperfError, one_line

SOURCE_KEYS = {"title": True, "url": False, "publisher": False, "licence": False, "date": True, "figures": True}
FIGURE_KEYS = {"claim": True, "then": True, "quote": True, "context": False}   # key -> required


class SourcesFileError(TfperfError):
    """A ``docs/sources/<topic>.yaml`` file cannot be used."""

    def __init__(self, path: str, field: str, problem: str) -> None:
        self.path, self.field, self.problem = path, field, problem
        super().__init__(one_line(f"{path}: {field}: {problem}"))


@dataclass(frozen=True)
class Origin:
    """A source document: what it is called, where it is, under which licence."""

    title: str
    date: str
    url: str | None = None
    publisher: str | None = None
    licence: str | None = None


@dataclass(frozen=True)
class SourceFigure:
    """One finding of a source, tied to the claim of the topic that tests it today."""

    topic: str
    claim: str
    then: str            # the source's finding in its own figures ("compile() made predict() 30× slower")
    quote: str           # the source's words, verbatim
    origin: Origin
    context: str | None = None


Sources = dict[str, list[SourceFigure]]


def load_sources(root: str | Path | None, claims: Mapping[str, set[str]]) -> tuple[Sources, list[SourcesFileError]]:
    """Every ``<root>/<topic>.yaml``; ``claims`` maps each topic to its claim ids (a figure
    must name one of them). A missing root gives no sources and no error."""
    out: Sources = {}
    errors: list[SourcesFileError] = []
    if root is None or not Path(root).is_dir():
        return out, errors
    for path in sorted(Path(root).glob("*.yaml")):
        try:
            topic, figures = _read(path, claims)
        except SourcesFileError as exc:
            errors.append(exc)
            continue
        out[topic] = figures
    return out, errors


def _read(path: Path, claims: Mapping[str, set[str]]) -> tuple[str, list[SourceFigure]]:
    where = str(path)
    data = read_yaml(path, lambda problem: SourcesFileError(where, "(file)", problem))
    if not isinstance(data, dict):
        raise SourcesFileError(where, "(top level)", "must be a mapping with `topic` and `sources`")
    _known(data, {"topic": True, "sources": True}, where, "")
    topic = str(data["topic"])
    if topic != path.stem:
        raise SourcesFileError(where, "topic", f"{topic!r} is not this file's topic {path.stem!r}")
    if topic not in claims:
        raise SourcesFileError(where, "topic", f"no topic {topic!r} in the snippets")
    if not isinstance(data["sources"], list) or not data["sources"]:
        raise SourcesFileError(where, "sources", "must be a non-empty list")
    figures: list[SourceFigure] = []
    for i, src in enumerate(data["sources"]):
        at = f"sources.{i}"
        _known(src, SOURCE_KEYS, where, at)
        url = src.get("url")
        if url is not None and not (isinstance(url, str) and url.startswith(("https://", "http://"))):
            raise SourcesFileError(where, f"{at}.url", f"{url!r} is not an http(s) address (null: none known)")
        origin = Origin(title=_text(src, "title", where, at), date=_text(src, "date", where, at), url=url,
                        publisher=_opt(src, "publisher", where, at), licence=_opt(src, "licence", where, at))
        if not isinstance(src["figures"], list) or not src["figures"]:
            raise SourcesFileError(where, f"{at}.figures", "must be a non-empty list")
        for j, fig in enumerate(src["figures"]):
            fat = f"{at}.figures.{j}"
            _known(fig, FIGURE_KEYS, where, fat)
            claim = _text(fig, "claim", where, fat)
            if claim not in claims[topic]:
                known = ", ".join(sorted(claims[topic])) or "none"
                raise SourcesFileError(where, f"{fat}.claim", f"{claim!r} is not a claim of {topic} (known: {known})")
            figures.append(SourceFigure(topic, claim, then=_text(fig, "then", where, fat),
                                        quote=_text(fig, "quote", where, fat), origin=origin,
                                        context=_opt(fig, "context", where, fat)))
    return topic, figures


def _known(obj: Any, spec: dict[str, bool], where: str, at: str) -> None:
    prefix = f"{at}." if at else ""
    if not isinstance(obj, dict):
        raise SourcesFileError(where, at or "(top level)", "must be a mapping")
    for k in obj:
        if k not in spec:
            raise SourcesFileError(where, f"{prefix}{k}", f"unknown key (known here: {', '.join(spec)})")
    for k, required in spec.items():
        if required and obj.get(k) in (None, ""):
            raise SourcesFileError(where, f"{prefix}{k}", "missing")


def _text(obj: Mapping[str, object], key: str, where: str, at: str) -> str:
    v = obj.get(key)
    if not isinstance(v, (str, int, float)) or isinstance(v, bool) or str(v).strip() == "":
        raise SourcesFileError(where, f"{at}.{key}", "must be a non-empty text")
    return str(v).strip()


def _opt(obj: Mapping[str, object], key: str, where: str, at: str) -> str | None:
    return None if obj.get(key) is None else _text(obj, key, where, at)
