"""The placeholders a page's Markdown carries, parsed.

Block placeholders, each alone on a line (an HTML comment, invisible if not replaced)::

    <!-- tfperf:chart predict_vs_call view=latency x=batch facet=model -->
    <!-- tfperf:recommendations predict_vs_call -->
    <!-- tfperf:claims predict_vs_call -->
    <!-- tfperf:trends predict_vs_call -->      (verdicts per TensorFlow release: render/blocks/version_blocks.py)
    <!-- tfperf:changes predict_vs_call -->     <!-- tfperf:versions -->
    <!-- tfperf:breakdown predict_vs_call -->
    <!-- tfperf:notebook predict_vs_call -->
    <!-- tfperf:findings -->   <!-- tfperf:runners -->   <!-- tfperf:datafiles -->   <!-- tfperf:errors -->
    <!-- tfperf:failures -->
    <!-- tfperf:chart cpu_threads view=settings x=threads color=onednn facet=model row=batch -->
    <!-- tfperf:settings cpu_threads threads=default,inter1,omp1 onednn=1 -->
    <!-- tfperf:metrics serving_formats fields=load_s,convert_s,file_bytes -->
    <!-- tfperf:breakeven xla_jit baseline=function candidate=xla -->
    <!-- tfperf:tenrun xla_jit -->
    <!-- tfperf:outputs mixed_precision isa=avx512_bf16,amx_bf16 -->   (each output's distance from the reference's)
    <!-- tfperf:perstep train_step -->        (fixed cost per call apart from cost per step: render/blocks/per_step_block.py)
    <!-- tfperf:answers xla_jit -->   <!-- tfperf:questions -->   (the questions first: render/blocks/answers_block.py)

Inline figures inside prose (a Python-like call; only literal arguments)::

    {{ tfperf.speedup("predict_vs_call", "call_beats_predict_single") }}
    {{ tfperf.speedup("predict_vs_call", "call_beats_predict_single", model="tiny", runner="x") }}
    {{ tfperf.verdict("predict_vs_call", "compile_slows_predict") }}
    {{ tfperf.median("predict_vs_call", "predict", model="tiny", batch=1) }}
    {{ tfperf.runners() }}
    {{ tfperf.when("cpu_threads", "omp1_faster", faster="still helps", slower="now hurts",
                   same="makes no difference", depends="depends on the model") }}
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from ...errors import TfperfError

BLOCK_KINDS = ("chart", "recommendations", "claims", "trends", "breakdown", "notebook",
               "findings", "runners", "datafiles", "errors", "failures", "settings", "metrics", "breakeven", "tenrun",
               "dothis", "changes", "versions", "perstep", "answers", "questions", "vocabulary", "arrivals",
               "outputs")
INLINE_FUNCS = ("speedup", "verdict", "median", "runners", "when", "share")

BLOCK_RE = re.compile(r"^[ \t]*<!--\s*tfperf:(?P<body>.*?)-->[ \t]*$", re.MULTILINE)
INLINE_RE = re.compile(r"\{\{\s*tfperf\.(?P<call>.*?)\s*\}\}")


class DirectiveError(TfperfError, ValueError):
    """A placeholder the hook cannot understand: an author's mistake, reported by line.
    Also a ValueError, so that a caller catching one catches it."""


@dataclass
class Directive:
    kind: str
    args: list[Any] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    inline: bool = False
    text: str = ""          # the placeholder as written, for messages

    @property
    def topic(self) -> str | None:
        return str(self.args[0]) if self.args else None


def parse_block(body: str) -> Directive:
    parts = body.split()
    if not parts:
        raise DirectiveError("empty tfperf placeholder")
    kind, rest = parts[0], parts[1:]
    if kind not in BLOCK_KINDS:
        raise DirectiveError(f"unknown placeholder kind {kind!r} (known: {', '.join(BLOCK_KINDS)})")
    args = [p for p in rest if "=" not in p]
    opts = dict(p.split("=", 1) for p in rest if "=" in p)
    return Directive(kind, args, opts, text=f"<!-- tfperf:{body.strip()} -->")


def parse_inline(call: str) -> Directive:
    try:
        node = ast.parse(call.strip(), mode="eval").body
    except SyntaxError as exc:
        raise DirectiveError(f"cannot parse tfperf.{call}: {exc.msg}") from None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        raise DirectiveError(f"tfperf.{call} is not a call like tfperf.speedup(\"topic\", \"claim\")")
    name = node.func.id
    if name not in INLINE_FUNCS:
        raise DirectiveError(f"unknown inline figure tfperf.{name} (known: {', '.join(INLINE_FUNCS)})")
    try:
        args = [ast.literal_eval(a) for a in node.args]
        opts = {str(k.arg): ast.literal_eval(k.value) for k in node.keywords}
    except ValueError:
        raise DirectiveError(f"tfperf.{call}: arguments must be literals") from None
    return Directive(name, args, opts, inline=True, text="{{ tfperf." + call + " }}")
