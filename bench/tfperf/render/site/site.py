"""The site build: everything the MkDocs hook does, as one object over one analysed dataset.

Configuration by environment variables (defaults relative to mkdocs.yml):

* ``TFPERF_RESULTS``  results root (default ``data/results``);
* ``TFPERF_SNIPPETS`` topic YAMLs and snippets (default ``snippets``);
* ``TFPERF_CACHE``    SVG and speedup caches (default ``build/site-cache``);
* ``TFPERF_LOCAL``    this machine's own results (default ``local/results``, written by
  ``scripts/main``): never part of the published figures; when the folder holds results,
  each topic page gets a "this machine" section after its claims table, and the Runners
  page one after the runner list (``render.blocks.local_blocks``). An empty value turns it off.
* ``TFPERF_SOURCES``  what the topics' sources reported (default ``sources``; one
  ``<topic>.yaml`` each, ``analyse/origins.py``): the "what changed since the source"
  lines of the "Do this" boxes.

The notebook pages' "Open in Colab" link opens the copy committed in ``docs/notebooks/``
of the GitHub repository named by ``TFPERF_REPO_URL``, ``GITHUB_REPOSITORY``, mkdocs.yml's
``repo_url`` or the ``origin`` remote (``render/page/notebooks.py``); a topic gets it only while
that copy is its page's notebook byte for byte (``tfperf notebooks`` writes them).

Block placeholders become a token paragraph in ``on_page_markdown`` and the rendered HTML
in ``on_page_content`` (so Markdown never touches generated HTML); inline figures the same.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...analyse import LOCAL_ROOT, Dataset, RatioCache, Sources, ThisMachine, analyse, load_sources, this_machine
from ...errors import ResultsFileError
from ...store.files import MAX_BYTES, read_regular
from ..blocks.blocks import errors_box, render_block
from ..blocks.local_blocks import runners_section, topic_section
from ..page.context import (
    BLOCK_RE,
    DATA_URL,
    INLINE_RE,
    SCHEMA_URL,
    SVG_URL,
    Context,
    DirectiveError,
    parse_block,
    parse_inline,
)
from ..page.embed import SvgCache, fetch_code
from ..page.embed import write_all as write_parts
from ..page.html import Markup, admonition, h, link
from ..page.notebooks import Colab, colab_config, same_text, topic_notebook
from .inline import render_inline

log = logging.getLogger("mkdocs.hooks.tfperf")

# A pymdownx.snippets include line, `--8<-- "topic.py:section"` (inside a code fence, usually).
INCLUDE_RE = re.compile(r"""^(?P<indent>[ \t]*)-+8<-+[ \t]+(?P<q>["']?)(?P<name>[^"':\s]+)[^"'\n]*(?P=q)[ \t]*$""",
                        re.MULTILINE)
FENCE_RE = re.compile(r"^(?P<fence>```+|~~~+).*?^(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)
TOKEN_RE = re.compile(r"(?:<p>)?TFPERFSLOT(\d+)X(?:</p>)?")


class Site:
    def __init__(self, root: Path, results: Path, snippets: Path, cache: Path,
                 local: Path | None = None, local_shown_as: str = LOCAL_ROOT, sources: Path | None = None,
                 colab: Colab | None = None) -> None:
        self.root, self.results, self.snippets, self.cache = root, results, snippets, cache
        self.sources_dir, self.colab = sources, colab
        self.sources: Sources = {}
        self.local, self.local_shown_as = local, local_shown_as   # this machine's results root
        self.this_machine = ThisMachine(root=local_shown_as)
        self.gen_dir = cache / "generated"
        self.ds: Dataset | None = None
        self.svgs = SvgCache(cache / "svg")
        self.ratios = RatioCache(cache / "ratios.json")
        self.notebooks: dict[str, str] = {}           # topic -> notebook page url
        self.colab_topics: set[str] = set()            # topics whose committed notebook is the page's
        self.slots: dict[str, dict[int, Markup]] = {}  # page src -> slot -> html
        self.parts: dict[str, dict[str, str]] = {}     # page url -> its fetched parts (render/page/embed.py)
        self.urls: dict[str, str] = {}                 # page src -> page url
        self.topic_pages: set[str] | None = None       # topics with a docs/topics/<topic>.md page
        self.topic_order: tuple[str, ...] = ()          # the topic pages in the nav's reading order

    @classmethod
    def from_config(cls, config: Any) -> Site:
        root = Path(config["config_file_path"]).resolve().parent
        def path(var: str, default: str) -> Path:
            p = Path(os.environ.get(var, default))
            return p if p.is_absolute() else root / p
        local = path("TFPERF_LOCAL", LOCAL_ROOT) if os.environ.get("TFPERF_LOCAL", LOCAL_ROOT) else None
        shown = LOCAL_ROOT if local is None else (
            local.relative_to(root).as_posix() if local.is_relative_to(root) else str(local))
        return cls(root, path("TFPERF_RESULTS", "data/results"), path("TFPERF_SNIPPETS", "snippets"),
                   path("TFPERF_CACHE", "build/site-cache"), local=local, local_shown_as=shown,
                   sources=path("TFPERF_SOURCES", "docs/sources"),
                   colab=colab_config(config, str(config["config_file_path"]), env=os.environ, root=root))

    # -- build steps ----------------------------------------------------------------------

    def prepare(self) -> None:
        """Analyse the data and write the notebooks (start of every build)."""
        self.ds = analyse(self.results, self.snippets, cache=self.ratios)
        # This machine's results: compared with the published ones, never added to them.
        self.this_machine = (this_machine(self.local, self.results, self.snippets, self.ratios, self.local_shown_as)
                             if self.local is not None else ThisMachine(root=self.local_shown_as))
        for e in self.this_machine.errors:
            log.info("tfperf: skipped local data: %s", e)
        self.svgs.produced.clear()
        self.slots.clear()
        self.parts.clear()
        self.urls.clear()
        failed = set(self.ds.topic_errors.values())
        for err in self.ds.errors:
            if err not in failed:
                log.info("tfperf: skipped data: %s", err)
        for topic, err in sorted(self.ds.topic_errors.items()):
            # An author's mistake: fails --strict, with this line as the reason; the topic's
            # blocks show the same error on its page.
            log.warning("tfperf: topic %s not loaded: %s", topic, err)
        claims = {t: {str(c.get("id")) for c in self.ds.claims_of(t)} for t in self.ds.topics}
        self.sources, source_errors = load_sources(self.sources_dir, claims)
        for se in source_errors:
            if Path(se.path).stem not in self.ds.topic_errors:   # else its topic's error says why
                log.warning("tfperf: %s", se)      # an author's mistake: fails --strict
        self.notebooks = {}
        nb_dir = self.gen_dir / "notebooks"
        nb_dir.mkdir(parents=True, exist_ok=True)
        for topic, info in sorted(self.ds.topics.items()):
            snippet = info.path.with_suffix(".py")
            if not snippet.is_file():
                continue
            text = topic_notebook(snippet, info.title)
            target = nb_dir / f"{topic}.ipynb"
            if not same_text(target, text):
                target.write_bytes(text.encode("utf-8"))
            self.notebooks[topic] = f"notebooks/{topic}/"
        self.colab_topics = self._colab_topics()

    def _colab_topics(self) -> set[str]:
        """The topics whose Colab link opens their page's notebook: the copy committed where
        the link points is the notebook just made, byte for byte. A stale or missing copy
        gets no link (tests/render/page/test_notebooks_committed.py fails on it in CI)."""
        if self.colab is None:
            return set()
        ok = set()
        for topic in sorted(self.notebooks):
            committed = self.colab.committed(self.root, topic)
            if same_text(committed, (self.gen_dir / "notebooks" / f"{topic}.ipynb").read_text(encoding="utf-8")):
                ok.add(topic)
            else:
                state = "out of date" if committed.is_file() else "missing"
                log.info("tfperf: no Colab link for %s: %s is %s (run `tfperf notebooks`)", topic,
                         committed.relative_to(self.root).as_posix() if committed.is_relative_to(self.root)
                         else committed, state)
        log.info("tfperf: Colab links open github.com/%s/%s at %s (from %s) for %d of %d notebooks",
                 self.colab.owner, self.colab.repo, self.colab.branch, self.colab.source, len(ok), len(self.notebooks))
        return ok

    def set_pages(self, src_uris: list[str]) -> None:
        self.topic_pages = {u[len("topics/"):-3] for u in src_uris if u.startswith("topics/") and u.endswith(".md")}

    def notebook_files(self) -> list[str]:
        return [f"notebooks/{t}.ipynb" for t in sorted(self.notebooks)]

    @property
    def is_fixture(self) -> bool:
        return (self.results / "FIXTURE").exists() or (self.results.parent / "FIXTURE").exists() or (
            self.results / "README.txt").exists() and "FIXTURE" in (self.results / "README.txt").read_text()

    def page_markdown(self, markdown: str, src_uri: str, url: str) -> str:
        assert self.ds is not None
        colab = {t: self.colab.url(t) for t in sorted(self.colab_topics)} if self.colab is not None else {}
        ctx = Context(self.ds, prefix=_prefix(url), svgs=self.svgs, notebooks=self.notebooks, colab=colab,
                      topic_pages=self.topic_pages, topic_order=self.topic_order, sources=self.sources,
                      fragments=self.parts.setdefault(url, {}))
        self.urls[src_uri] = url
        slots: dict[int, Markup] = {}
        self.slots[src_uri] = slots
        shown_errors = "tfperf:errors" in markdown
        failed_shown: set[str] = set()

        def block(m: re.Match[str]) -> str:
            nonlocal shown_errors
            html = self._render(lambda: self._block(m.group("body"), ctx, failed_shown), src_uri, m.group(0))
            if self.this_machine:
                html = Markup(html + self._render(lambda: self._this_machine(m.group("body"), ctx), src_uri,
                                                  m.group(0)))
            if self.ds and self.ds.errors and not shown_errors:
                html = Markup(errors_box(self.ds) + html)
                shown_errors = True
            slots[len(slots)] = html
            return f"\n\nTFPERFSLOT{len(slots) - 1}X\n\n"

        def inline(m: re.Match[str]) -> str:
            html = self._render(lambda: render_inline(parse_inline(m.group("call")), self.ds), src_uri,  # type: ignore[arg-type]
                                m.group(0), inline=True)
            slots[len(slots)] = html
            return f"TFPERFSLOT{len(slots) - 1}X"

        markdown = self._without_failed_includes(markdown)
        return _outside_fences(markdown, lambda part: INLINE_RE.sub(inline, BLOCK_RE.sub(block, part)))

    def _without_failed_includes(self, markdown: str) -> str:
        """Include lines of the snippets of topics that did not load, replaced by a line
        saying so: pymdownx.snippets would stop the build on a snippet that is not UTF-8
        (the topic's error is on the page, from its blocks, and in the build log)."""
        failed = self.ds.topic_errors if self.ds is not None else {}

        def line(m: re.Match[str]) -> str:
            name = m.group("name")
            if Path(name).stem not in failed:
                return m.group(0)
            return f"{m.group('indent')}# {name}: not shown: topic {Path(name).stem} did not load (see the build log)"

        return INCLUDE_RE.sub(line, markdown) if failed else markdown

    def _block(self, body: str, ctx: Context, failed_shown: set[str]) -> Markup:
        """One block; for a topic whose YAML or snippet did not load, the error instead
        (once per page: the topic's other blocks are left out, never drawn as if it had no
        claims or no variants)."""
        d = parse_block(body)
        err = self.ds.topic_errors.get(str(d.topic)) if self.ds is not None and d.topic else None
        if err is None:
            return render_block(d, ctx)
        if d.topic in failed_shown:
            return Markup("")
        failed_shown.add(str(d.topic))
        return admonition("failure", f"The topic {d.topic} could not be loaded",
                          Markup(f"<p><code>{h(str(err))}</code></p><p>Nothing of this topic is drawn until its "
                                 "YAML and snippet load; the build log names the same file and key.</p>"))

    def _this_machine(self, body: str, ctx: Context) -> Markup:
        """This machine's section after a topic's claims table and after the runner list."""
        try:
            d = parse_block(body)
        except DirectiveError:
            return Markup("")        # reported once, by the block itself
        if d.kind == "claims" and d.topic:
            return topic_section(self.this_machine, str(d.topic), ctx)
        if d.kind == "runners":
            return runners_section(self.this_machine, ctx)
        return Markup("")

    def _render(self, fn: Callable[[], Markup], src_uri: str, text: str, inline: bool = False) -> Markup:
        try:
            return fn()
        except DirectiveError as exc:
            log.warning("tfperf: %s: %s", src_uri, exc)   # an author's mistake: fails --strict
            msg = f"{text.strip()}: {exc}"
        except Exception as exc:  # noqa: BLE001 - one broken figure must not take the page down
            log.warning("tfperf: %s: %s failed: %r", src_uri, text.strip(), exc)
            msg = f"{text.strip()}: {type(exc).__name__}: {exc}"
        if inline:
            return Markup(f'<span class="tfperf-error">{h(msg)}</span>')
        return admonition("failure", "This figure could not be drawn", Markup(f"<p>{h(msg)}</p>"))

    def page_content(self, html: str, src_uri: str) -> str:
        slots = self.slots.get(src_uri, {})
        out = TOKEN_RE.sub(lambda m: str(slots.get(int(m.group(1)), m.group(0))), html)
        out = self._colab_link(out, src_uri)
        if src_uri.endswith(".md") and src_uri in self.urls:
            out = fetch_code(out, self.parts.get(self.urls[src_uri]))
        if self.is_fixture and slots:
            out = str(admonition("warning", "Fixture data",
                                 "This build reads synthetic fixture data (runner labels starting with "
                                 "“fixture-”), made by tests/fixtures/site/make_fixture.py. These are not measurements.")) + out
        return out

    def _colab_link(self, html: str, src_uri: str) -> str:
        """A notebook page's "Open in Colab" link, under its title (when configured)."""
        m = re.fullmatch(r"notebooks/(?P<topic>[^/]+)\.ipynb", src_uri)
        if self.colab is None or m is None or m.group("topic") not in self.colab_topics:
            return html
        p = Markup('<p class="tfperf-colab">' + link(self.colab.url(m.group("topic")), "Open in Colab",
                                                       rel="noopener") + "</p>")
        at = html.find("</h1>")
        return html[:at + 5] + p + html[at + 5:] if at >= 0 else p + html

    def post_build(self, site_dir: Path) -> None:
        """Publish the raw data, the schema, the SVG fallbacks and the notebooks. The raw
        data is the results files that loaded, nothing else under the results root: each
        is read again as a regular file within the size limit (never through a link)."""
        data_dir = site_dir / DATA_URL
        if data_dir.exists():
            shutil.rmtree(data_dir)
        for p in self.ds.files if self.ds is not None else []:
            try:
                data = read_regular(p, MAX_BYTES, _file_error(p))
            except ResultsFileError as exc:     # changed since it was checked: not published
                log.warning("tfperf: not published: %s", exc)
                continue
            dest = data_dir / p.relative_to(self.results)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
        from ...store.schema import schema_path
        (site_dir / SCHEMA_URL).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(schema_path(), site_dir / SCHEMA_URL)
        self.svgs.write_all(site_dir / SVG_URL)
        write_parts({url: parts for url, parts in self.parts.items() if parts}, site_dir)
        for topic in self.notebooks:
            src = self.gen_dir / "notebooks" / f"{topic}.ipynb"
            dest = site_dir / "notebooks" / f"{topic}.ipynb"
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
        self.ratios.save()


def _file_error(path: Path) -> Callable[[str], ResultsFileError]:
    return lambda problem: ResultsFileError(str(path), "(file)", problem)


def _prefix(url: str) -> str:
    """Relative path from a page at ``url`` (e.g. "topics/x/") to the site root."""
    return "../" * url.count("/")


def _outside_fences(text: str, fn: Any) -> str:
    out, last = [], 0
    for m in FENCE_RE.finditer(text):
        out.append(fn(text[last:m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(fn(text[last:]))
    return "".join(out)
