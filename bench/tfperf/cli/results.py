"""The results files' commands: ``tfperf validate``, ``tfperf merge`` and ``tfperf relabel``.

``add_parsers(subparsers)`` adds them to the main parser; each sets ``handler`` to a function
taking the parsed arguments and returning the exit status.
"""

from __future__ import annotations

import argparse
import sys

from ..errors import ResultsFileError
from ..store import MergeReport, find_files, load, merge_into, read, results_path, write_atomic
from ..store.files import record_count
from ..store.merge import newer_warning
from ..store.relabel import relabel
from .shared_options import add_data


def cmd_validate(args: argparse.Namespace) -> int:
    """One line per file; exit 1 if any file is bad (or no file was found)."""
    bad = 0
    found = 0
    for given in args.files:
        paths = find_files(given)
        if not paths:
            print(f"{given}: (file): no results file found", file=sys.stderr)
            bad += 1
        for p in paths:
            found += 1
            try:
                doc = load(p)
            except ResultsFileError as exc:
                print(exc, file=sys.stderr)
                bad += 1
                continue
            if not args.quiet:
                counts = ", ".join(f"{n} {k}" for k, n in record_count(doc).items())
                print(f"{p}: ok ({counts})")
    return 1 if bad else 0


def cmd_merge(args: argparse.Namespace) -> int:
    """Merge artifacts into the data folder; exit 1 if any artifact or target was rejected.
    A target the file system refused to write (full disk, file-size limit, read-only
    folder) ends it with that error, after the lines saying what was merged. An artifact
    written by a newer tfperf is merged with a warning naming both versions."""
    report = merge_into(args.data, args.artifacts)
    for line in report.lines():
        print(line, file=sys.stderr if line.startswith("rejected") else sys.stdout)
    for line in _newer_writers(report):
        print(line, file=sys.stderr)
    failure = report.write_failure()
    if failure is not None:          # what was written is said above; the CLI says this once
        raise failure
    return 0 if report.ok else 1


def cmd_relabel(args: argparse.Namespace) -> int:
    """Write each file's measurements under the new label into DATA/results/<label>/; the
    old file stays until the user removes it (``git mv`` keeps the history readable)."""
    for given in args.files:
        doc = load(given)
        target = results_path(args.data, args.to, doc["profile"])
        if target.exists():
            raise ResultsFileError(str(target), "(file)", "exists already: relabel into a new runner only")
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, relabel(doc, args.to, str(given)))
        print(f"{given}: {len(doc['results'])} results of runner {doc['runner']['label']!r} written as "
              f"{args.to!r} to {target}")
    return 0


def _newer_writers(report: MergeReport) -> list[str]:
    """Warnings for the accepted artifacts that a newer tfperf wrote. They loaded once in
    the merge, so reading them again cannot fail on their content."""
    accepted = sorted({src for src, *_ in report.merged} | {src for src, _ in report.duplicates}, key=str)
    out = []
    for src in accepted:
        try:
            doc = read(src)
        except ResultsFileError:      # changed on disk since the merge read it: nothing to say
            continue
        warning = newer_warning(str(src), doc) if isinstance(doc, dict) else None
        if warning:
            out.append(warning)
    return out


def add_parsers(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("validate", help="check results files against the schema",
                              description="Check results files (or folders of them) against the results "
                                          "schema; prints one line per bad file and exits 1 if any is bad.")
    p.add_argument("files", nargs="+", metavar="FILE", help="results file or folder")
    p.add_argument("-q", "--quiet", action="store_true", help="print only the bad files")
    p.set_defaults(handler=cmd_validate)

    m = subparsers.add_parser("merge", help="validate artifacts and merge them into data/",
                              description="Validate results files from runners or contributors and merge the "
                                          "valid ones into DATA/results/<runner>/<profile>.json. Malformed files, "
                                          "missing paths and empty folders are rejected (exit 1); the others are "
                                          "still merged, and a target that cannot be used is skipped while the "
                                          "others are merged. Idempotent: a target that nothing new reaches is not "
                                          "written. A file written by a newer tfperf is merged with a warning "
                                          "naming both versions.")
    add_data(m)
    m.add_argument("artifacts", nargs="+", metavar="ARTIFACT", help="results file or folder of them")
    m.set_defaults(handler=cmd_merge)

    r = subparsers.add_parser("relabel", help="rename a runner: the same results under a new label",
                              description="Write each results file's measurements under runner label TO "
                                          "(keys, their hashes and environment ids rewritten to match) into "
                                          "DATA/results/TO/<profile>.json. Nothing is re-measured.")
    r.add_argument("--to", required=True, metavar="LABEL", help="the new runner label")
    add_data(r)
    r.add_argument("files", nargs="+", metavar="FILE", help="results file of the runner")
    r.set_defaults(handler=cmd_relabel)
