"""Results files on disk: where they live, reading them without trusting them, writing them
atomically.

Layout: ``<root>/results/<runner-label>/<profile>.json``; ``root`` is the repository's
``data/`` folder. Files are written in one canonical form (sorted keys, one record per
line) so that equal documents are equal bytes and a git diff shows whole records.

A path named ``*.json`` or ``*.yaml`` can be anything: a symbolic link to ``/etc/passwd``
or ``/proc/self/environ`` (whose bytes would then be read and published as if they were
the file's), a link to ``/dev/zero`` (which never ends), a FIFO (which blocks the reader
forever), a directory, or a link to nothing. :func:`read_regular` reads only a regular
file, never through a symbolic link unless asked, and never more than ``limit`` bytes; any
other path is an error that says what the path is. The caller gives the error to raise
(its own kind, naming its file), so every reader reports alike: results files here, and
topic YAMLs, snippets and the files the site publishes elsewhere.
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import stat
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..errors import ResultsFileError, ResultsWriteError, TfperfError
from ..hardware import cpu_identity
from .record_types import ResultsDoc, Runner
from .schema import NAME_RULE, PROFILES, SCHEMA_VERSION, is_name, migrate
from .validate import CheckedFiles, NonFinite, checked, field_path, non_finite, short, trusted, validate

LIST_KEYS = ("results", "noise", "breakdowns", "scenarios")

# Limits on what a results file may be, checked before it is parsed: a file is judged
# alone, and no file can make the reader run out of memory or stack. A full profile of
# one runner is about 1 MB and nests 7 levels deep.
MAX_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 32
MAX_INT_DIGITS = 18          # every integer of the schema fits in 64 bits

# A JSON string (the loop unrolled: twice as quick as one alternation per character), or a
# run of text that is neither a string nor a bracket: what nesting_depth removes.
_NOT_NESTING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[^\[\]{}"]+', re.DOTALL)
_STEP = np.zeros(256, dtype=np.int64)       # byte -> how it moves the depth
_STEP[[ord("["), ord("{")]] = 1
_STEP[[ord("]"), ord("}")]] = -1


class _HugeInt(ValueError):
    pass


def _int(literal: str) -> int:
    if len(literal.lstrip("-")) > MAX_INT_DIGITS:
        raise _HugeInt(literal)
    return int(literal)


def nesting_depth(text: str) -> int:
    """How deep arrays and objects nest in JSON text, found without parsing it (brackets
    inside strings do not count), so that a hostile file never reaches the recursive
    parser."""
    left = _NOT_NESTING.sub("", text)          # brackets, and the quote of a string never closed
    steps = _STEP[np.frombuffer(left.encode("utf-8"), dtype=np.uint8)]
    steps = steps[steps != 0]
    return int(np.cumsum(steps).max()) if steps.size else 0


class _DuplicateKey(ValueError):
    pass


def _object(pairs: list[tuple[str, Any]]) -> dict[str, object]:
    out: dict[str, object] = dict(pairs)      # in C; a key seen twice makes it shorter
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _DuplicateKey(k)
            seen.add(k)
    return out


def parse(text: str, path: str = "<text>") -> Any:
    """JSON text -> value. NaN, Infinity, duplicate keys, integers of more than 18 digits
    and nesting deeper than ``MAX_DEPTH`` are errors naming the file (and the field,
    where the parser can tell it)."""
    depth = nesting_depth(text)
    if depth > MAX_DEPTH:
        raise ResultsFileError(path, "(file)", f"arrays and objects nest {depth} levels deep; the limit is {MAX_DEPTH}")
    try:
        literals: list[NonFinite] = []

        def constant(literal: str) -> NonFinite:
            literals.append(NonFinite(literal))
            return literals[-1]

        doc = json.loads(text, parse_constant=constant, object_pairs_hook=_object, parse_int=_int)
    except _DuplicateKey as exc:
        raise ResultsFileError(path, "(file)", f"duplicate key {short(exc.args[0])} in one object") from None
    except _HugeInt as exc:
        raise ResultsFileError(path, "(file)", f"the integer {short(exc.args[0], 24)} is out of range "
                                               f"(more than {MAX_INT_DIGITS} digits)") from None
    except json.JSONDecodeError as exc:
        raise ResultsFileError(path, "(file)",
                               f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    for where in non_finite(doc) if literals else ():
        literal = doc
        for seg in where:
            literal = literal[seg]
        raise ResultsFileError(path, field_path(where),
                               f"{literal!r} is not allowed: measurements must be finite numbers")
    return doc


# -- reading a path that may be hostile ---------------------------------------------------

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def kind(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words ("a directory", "a FIFO (named pipe)")."""
    return next((words for test, words in _KINDS if test(mode)), "not a regular file")


def what_is(path: Path) -> str | None:
    """What ``path`` is when it is not a regular file (not following a symbolic link): "a
    symbolic link to /etc/passwd", "a directory"...; None for a regular file. Raises
    ``OSError`` (``FileNotFoundError``: nothing there) as ``os.lstat`` does."""
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.readlink(path)
        except OSError:
            return "a symbolic link"
        dangling = "" if os.path.exists(path) else ", which does not exist"
        return f"a symbolic link to {target}{dangling}"
    return None if stat.S_ISREG(st.st_mode) else kind(st.st_mode)


def size_text(n: float) -> str:
    return f"{n / 2**20:.0f} MiB" if n >= 2**20 else f"{n / 2**10:.0f} KiB"


def read_regular(path: str | Path, limit: int, error: Callable[[str], TfperfError], *,
                 follow_links: bool = False, too_large_hint: str = "") -> bytes:
    """The bytes of the regular file ``path``, or ``error(problem)`` raised: a symbolic link
    (unless ``follow_links``), a directory, a FIFO, a device, a missing or unreadable file,
    more than ``limit`` bytes (``too_large_hint`` ends that message). A FIFO or a device
    is never opened for reading, so nothing blocks or runs on forever."""
    p = Path(path)
    try:
        odd = None if follow_links else what_is(p)
        if odd is None:
            st = os.stat(p)
            odd = None if stat.S_ISREG(st.st_mode) else kind(st.st_mode)
        if odd is not None:
            raise error(f"is {odd}: only regular files are read")
        nofollow = 0 if follow_links else getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0) | nofollow)
    except OSError as exc:
        if exc.errno == errno.ELOOP:            # replaced by a link since the check
            raise error("is a symbolic link: only regular files are read") from None
        raise error(f"cannot read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):    # replaced since the check
                raise error(f"is {kind(st.st_mode)}: only regular files are read")
            if st.st_size > limit:
                raise error(f"is {size_text(st.st_size)}; the limit is {size_text(limit)}{too_large_hint}")
            data = fh.read(limit + 1)
        except OSError as exc:
            raise error(f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:                       # grew while it was read
        raise error(f"is over {size_text(limit)}, the limit{too_large_hint}")
    return data


# -- reading results files -----------------------------------------------------------------

def _read_bytes(path: Path) -> bytes:
    return read_regular(path, MAX_BYTES, lambda problem: ResultsFileError(str(path), "(file)", problem),
                        too_large_hint=" (split it by profile, or drop its breakdowns)")


def _parse_bytes(data: bytes, path: Path) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ResultsFileError(str(path), "(file)", f"not UTF-8 text (byte {exc.start})") from None
    return parse(text, str(path))


def read(path: str | Path) -> Any:
    """Parse one file without migrating or validating it. Only a regular file is read (a
    symbolic link, a directory, a FIFO or a device is refused, saying what it is), and
    only up to ``MAX_BYTES``."""
    return _parse_bytes(_read_bytes(Path(path)), Path(path))


@cache
def checked_files() -> CheckedFiles:
    """The memo of files that passed the check (``validate.CheckedFiles``), made on first use
    from ``TFPERF_CHECKED_CACHE`` (``checked_files.cache_clear()`` makes it read that again)."""
    return CheckedFiles.from_env()


def load(path: str | Path) -> ResultsDoc:
    """Read, migrate to the current schema version and validate one results file; bytes
    that passed the same checks before, here or in another process, are not checked again
    (:class:`~tfperf.store.validate.CheckedFiles`).

    Whatever the file holds, the only error is a ``ResultsFileError`` naming it: the
    callers (validate, merge, the site build) judge each file alone and go on with the
    others, so no other exception may escape from here. What passed ``validate`` is
    typed as the ``ResultsDoc`` the schema describes."""
    try:
        data = _read_bytes(Path(path))
        doc = migrate(_parse_bytes(data, Path(path)), str(path))
        memo = checked_files()
        name = memo.name(data)
        if memo.knows(name):
            return trusted(doc)
        good = checked(doc, str(path))
        memo.remember(name)
        return good
    except ResultsFileError:
        raise
    except RecursionError:
        raise ResultsFileError(str(path), "(file)", "nested too deeply to be checked") from None
    except Exception as exc:  # hostile input must never take a build down
        raise ResultsFileError(str(path), "(file)",
                               f"could not be checked ({type(exc).__name__}: {short(str(exc), 120)})") from exc


def find_files(root: str | Path) -> list[Path]:
    """What a reader of ``root`` could take for a results file, sorted: ``root`` itself when
    it is not a directory (whatever it is: :func:`read` judges it; nothing when it does not
    exist), else every entry under it at any depth named ``*.json`` (a regular file, a
    directory, a FIFO...) and every symbolic link. Links below ``root`` are listed, never
    followed, so that :func:`read` refuses each by name."""
    p = Path(root)
    if not p.is_dir():
        return [p] if os.path.lexists(p) else []
    out: list[Path] = []
    for folder, dirs, names in os.walk(p):      # a linked folder is listed in dirs, not entered
        for name in dirs + names:
            entry = Path(folder) / name
            if name.endswith(".json") or entry.is_symlink():
                out.append(entry)
    return sorted(out)


def in_layout(root: Path, path: Path) -> bool:
    """``path`` is ``<root>/<runner>/<profile>.json``: the only place a results file is read
    from a data folder."""
    parts = path.relative_to(root).parts
    return len(parts) == 2 and is_name(parts[0]) and parts[1] in {f"{p}.json" for p in PROFILES}


def load_dir(root: str | Path, *,
             layout: bool = False) -> tuple[list[tuple[Path, ResultsDoc]], list[ResultsFileError]]:
    """Load every results file under ``root`` independently: a bad file is reported in the
    second list and never stops the others; so is every path :func:`find_files` lists that
    is not a regular file, and, with ``layout``, every file not at
    ``<root>/<runner>/<profile>.json``. The good ones are typed as what ``load`` validated
    them to be."""
    base = Path(root)
    good: list[tuple[Path, ResultsDoc]] = []
    bad: list[ResultsFileError] = []
    for p in find_files(base):
        try:
            if layout and p != base and not in_layout(base, p) and what_is(p) is None:
                raise ResultsFileError(str(p), "(file)", f"is not at <runner>/<profile>.json under {base} "
                                                         f"(profile: {', '.join(PROFILES)}): not read")
            good.append((p, load(p)))
        except ResultsFileError as exc:
            bad.append(exc)
        except OSError as exc:          # gone since it was listed
            bad.append(ResultsFileError(str(p), "(file)", f"cannot read: {exc.strerror or exc}"))
    return _one_cpu_per_runner(good, bad)


def _one_cpu_per_runner(good: list[tuple[Path, ResultsDoc]], bad: list[ResultsFileError]
                        ) -> tuple[list[tuple[Path, ResultsDoc]], list[ResultsFileError]]:
    """The files of one runner label (its profiles) must name one CPU, as each file's own
    environments must (``validate``): the first file in path order sets it, and a file
    of another CPU under the same label is refused, so no figure mixes two processors."""
    first: dict[str, tuple[Path, str]] = {}
    kept: list[tuple[Path, ResultsDoc]] = []
    for p, doc in good:
        envs = list(doc["environments"].values())
        if not envs:
            kept.append((p, doc))
            continue
        label, cpu = doc["runner"]["label"], cpu_identity(dict(envs[0]))
        seen = first.setdefault(label, (p, cpu))
        if seen[1] != cpu:
            bad.append(ResultsFileError(str(p), "environments",
                                        f"measured on {cpu}, but {seen[0]} of the same runner {label!r} is "
                                        f"{seen[1]}: two CPUs cannot share one runner label"))
            continue
        kept.append((p, doc))
    return kept, bad


def check_name(value: Any, what: str, where: str) -> str:
    if not is_name(value):
        raise ResultsFileError(where, what, f"{short(value)} is not a valid name ({NAME_RULE})")
    return str(value)


def results_path(root: str | Path, runner_label: str, profile: str) -> Path:
    """``<root>/results/<runner_label>/<profile>.json``; names that could leave the folder
    ("..", "a/b", absolute paths) are refused, and so is a runner folder or a results file
    that is a symbolic link (what it points to is never read or written)."""
    check_name(runner_label, "runner.label", str(root))
    if profile not in PROFILES:
        raise ResultsFileError(str(root), "profile", f"{short(profile)} is not one of {', '.join(PROFILES)}")
    base = Path(root) / "results"
    path = base / runner_label / f"{profile}.json"
    for p in (path.parent, path):
        if os.path.islink(p):
            raise ResultsFileError(str(p), "(file)", f"is {what_is(p)}: only regular files and folders are used")
    if base.resolve() not in path.resolve().parents:
        raise ResultsFileError(str(root), "runner.label", f"{short(runner_label)} leads outside {base}")
    return path


def new_doc(runner_label: str, profile: str, description: str | None = None,
            contributed_by: str | None = None) -> ResultsDoc:
    """An empty, valid results document."""
    check_name(runner_label, "runner.label", "<new document>")
    known = next((p for p in PROFILES if p == profile), None)
    if known is None:
        raise ResultsFileError("<new document>", "profile", f"{short(profile)} is not one of {', '.join(PROFILES)}")
    runner: Runner = {"label": runner_label, "description": description, "contributed_by": contributed_by}
    return {
        "schema_version": SCHEMA_VERSION,
        "tfperf_version": __version__,
        "runner": runner,
        "profile": known,
        "environments": {},
        "results": [],
        "noise": [],
        "breakdowns": [],
        "scenarios": [],
    }


def compact(value: Any) -> str:
    """One value as it stands on its line of a results file."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))


def record_line(record: Any) -> str:
    return "  " + compact(record)


def assemble(header: Mapping[str, object], lines: dict[str, list[str]]) -> str:
    """The canonical text of a document from its fields other than the record lists
    (``header``) and each list's records already encoded by :func:`record_line`: sorted
    keys, one environment / record per line. ``append`` keeps encoded lines between
    writes, so it need not encode every record again."""
    out = ["{"]
    keys = sorted([*header, *lines])
    for n, key in enumerate(keys):
        end = "," if n < len(keys) - 1 else ""
        head = f" {json.dumps(key)}: "
        value = header.get(key)
        if lines.get(key):
            out += [head + "[", ",\n".join(lines[key]), f" ]{end}"]
        elif key in lines:
            out.append(head + "[]" + end)
        elif key == "environments" and value and isinstance(value, dict):
            items = [f"  {json.dumps(k)}: {compact(value[k])}" for k in sorted(value)]
            out += [head + "{", ",\n".join(items), f" }}{end}"]
        else:
            out.append(head + compact(value) + end)
    out.append("}")
    return "\n".join(out) + "\n"


def dumps(doc: Mapping[str, object]) -> str:
    """The canonical text of a document: sorted keys, one environment / record per line."""
    lists = {k: v for k, v in doc.items() if isinstance(v, list)}
    return assemble({k: v for k, v in doc.items() if k not in lists},
                    {k: [record_line(r) for r in v] for k, v in lists.items()})


def fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # e.g. Windows: directories cannot be opened; os.replace is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: str | Path, doc: Mapping[str, object], *, overwrite: bool = False) -> bool:
    """Validate ``doc`` and write it to ``path`` so that the file is, at every instant,
    either the old complete file or the new complete one (temp file in the same folder,
    fsync, rename, fsync the folder). An existing file with different content is refused
    unless ``overwrite``; so is a path that is not a regular file (a symbolic link, a
    directory). Returns False when the file already held exactly these bytes. When the
    file system refuses the write (full, file-size limit, read-only), the error is a
    :class:`~tfperf.errors.ResultsWriteError` naming the file, which is left as it was."""
    p = Path(path)
    validate(doc, str(p))
    data = dumps(doc).encode("utf-8")
    if os.path.lexists(p):
        odd = what_is(p)
        if odd is not None:
            raise ResultsFileError(str(p), "(file)", f"is {odd}: only a regular file is written")
        try:
            if p.read_bytes() == data:
                return False
        except OSError:
            pass
        if not overwrite:
            raise ResultsFileError(str(p), "(file)",
                                   "exists with different content: refusing to overwrite (merge or append to it, "
                                   "or pass overwrite=True / --force)")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise write_error(p.parent, exc) from None
    publish(p, data, replace=overwrite)
    return True


def write_error(path: Path, exc: OSError) -> ResultsWriteError:
    """The user's error for a write the file system refused (``ENOSPC``, ``EFBIG``, ``EROFS``...)."""
    return ResultsWriteError(str(path), "(file)", f"cannot write: {exc.strerror or exc}")


def publish(p: Path, data: bytes, *, replace: bool = True, sync: bool = True) -> None:
    """Put ``data`` at ``p`` so that the file is, at every instant, the old complete file
    or the new one: a temp file in the same folder, fsync, rename (or, with
    ``replace=False``, a link that fails on a file created meanwhile), fsync the folder.
    ``sync=False`` leaves out both fsyncs: whole or nothing still, but not on disk before
    this returns (a cache, which a crash only costs its next build). No validation: callers
    check what they write. A write the file system refuses is a
    :class:`~tfperf.errors.ResultsWriteError` naming ``p``; the temp file is removed and
    ``p`` keeps its old bytes."""
    tmp = p.with_name(f".{p.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "xb") as fh:
            fh.write(data)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        if replace:
            os.replace(tmp, p)
        else:
            _link_new(tmp, p, data)
        if sync:
            fsync_dir(p.parent)
    except OSError as exc:
        raise write_error(p, exc) from None
    finally:
        try:
            tmp.unlink()
        except OSError:
            pass


def _link_new(tmp: Path, path: Path, data: bytes) -> None:
    """Publish ``tmp`` as ``path`` only if ``path`` does not exist yet (a hard link is
    atomic and fails on an existing name, so a file created meanwhile is not replaced)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        if path.read_bytes() != data:
            raise ResultsFileError(str(path), "(file)",
                                   "was created by another process meanwhile: refusing to overwrite") from None
    except OSError:  # file systems without hard links
        if path.exists():
            raise ResultsFileError(str(path), "(file)", "exists: refusing to overwrite") from None
        os.replace(tmp, path)


def records(doc: ResultsDoc, kind: str) -> Sequence[Mapping[str, object]]:
    """One record list of a document by its name (one of ``LIST_KEYS``; absent: empty), for
    code that treats every kind of record alike (merging, appending, counting)."""
    lists: dict[str, Sequence[Mapping[str, object]]] = {
        "results": doc.get("results", []), "noise": doc.get("noise", []),
        "breakdowns": doc.get("breakdowns", []), "scenarios": doc.get("scenarios", [])}
    return lists[kind]


def record_count(doc: ResultsDoc) -> dict[str, int]:
    return {k: len(records(doc, k)) for k in LIST_KEYS}
