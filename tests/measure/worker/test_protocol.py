"""The worker protocol's docstring (measure/worker/serve.py) and its types (measure/worker/protocol.py)
name the same messages: every ``"cmd"`` and ``"type"`` the docstring shows is a tag of
``Command`` or ``Answer``, and every tag is shown. mypy checks that both ends send and read
those types (tests/codebase/test_lint.py)."""

from __future__ import annotations

import re
import typing

from tfperf.measure.worker import protocol, serve
from tfperf.store import record_types


def _tags(union: object, field: str) -> set[str]:
    out: set[str] = set()
    names = {**vars(record_types), **vars(protocol)}     # protocol imports the record types for mypy only
    for member in typing.get_args(union):
        hints = typing.get_type_hints(member, localns=names)
        out.update(typing.get_args(hints[field]))
    return out


def _doc() -> str:
    assert serve.__doc__
    return serve.__doc__


def test_every_command_the_docstring_shows_is_a_command_type_and_back() -> None:
    shown = set(re.findall(r'\{"cmd": "(\w+)"', _doc()))
    assert shown == _tags(protocol.Command, "cmd")


def test_every_answer_the_docstring_shows_is_an_answer_type_and_back() -> None:
    doc = _doc()
    shown = set(re.findall(r'\{"type": "(\w+)"', doc)) | set(re.findall(r'or "(\w+)"', doc))
    assert shown == _tags(protocol.Answer, "type")


def test_a_tag_the_docstring_lacks_is_found() -> None:
    """The check can fail: a message kind left out of the docstring shows as a difference."""
    doc = _doc().replace('or "breakdown_failed"', "")
    shown = set(re.findall(r'\{"type": "(\w+)"', doc)) | set(re.findall(r'or "(\w+)"', doc))
    assert _tags(protocol.Answer, "type") - shown == {"breakdown_failed"}
