"""Helpers shared by the CI tests (test_workflows*.py, test_ci_*.py); no test here.

A local git "origin" (a bare repository), a fake ``gh`` that answers from a JSON file and logs
its calls, and results documents from ``store_records`` written where a runner would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tfperf.store.files import dumps

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts" / "ci"
Doc = dict[str, Any]

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def venv() -> str:
    """The environment running the tests: it has tfperf's dependencies."""
    return sys.prefix


def git(repo: Path, *args: str) -> str:
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env={**os.environ, **GIT_ENV}, timeout=60).stdout


def write_doc(root: Path, doc: Doc) -> Path:
    """``doc`` at ``root/data/results/<runner>/<profile>.json`` in the canonical form."""
    f = root / "data" / "results" / doc["runner"]["label"] / f"{doc['profile']}.json"
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(dumps(doc), encoding="utf-8")
    return f


def fake_gh(bin_dir: Path, prs: list[Doc], issues: list[Doc] | None = None) -> Path:
    """A ``gh`` on PATH: ``pr list`` prints ``prs`` (from bin_dir/prs.json, which a test may
    rewrite) and ``issue list`` the issues (bin_dir/issues.json); ``pr create``, ``pr edit``,
    ``issue create`` and ``issue edit`` keep their ``--body-file`` as bin_dir/pr-body.md or
    issue-body.md, and ``issue create`` adds an open issue with its title to issues.json;
    ``workflow run`` and ``api`` succeed; every call is appended to bin_dir/gh.log."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    (bin_dir / "prs.json").write_text(json.dumps(prs), encoding="utf-8")
    (bin_dir / "issues.json").write_text(json.dumps(issues or []), encoding="utf-8")
    add_issue = (
        "import json, sys\n"
        "path, title = sys.argv[1], sys.argv[2]\n"
        "items = json.load(open(path))\n"
        "n = 1 + max([i['number'] for i in items], default=0)\n"
        "items.append({'number': n, 'title': title, 'state': 'OPEN'})\n"
        "json.dump(items, open(path, 'w'))\n")
    gh = bin_dir / "gh"
    gh.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> "{bin_dir}/gh.log"\n'
        # A one-off side effect (another run pushing, say) on the next `pr list`.
        f'if [ "$1 $2" = "pr list" ] && [ -f "{bin_dir}/hook.sh" ]; then\n'
        f'  mv "{bin_dir}/hook.sh" "{bin_dir}/hook.done" && sh -e "{bin_dir}/hook.done" >&2 || exit 9\n'
        "fi\n"
        'body=""; title=""; prev=""\n'
        'for a in "$@"; do [ "$prev" = "--body-file" ] && body="$a"; [ "$prev" = "--title" ] && title="$a"; prev="$a"; done\n'
        'case "$1 $2" in\n'
        f'  "pr list") cat "{bin_dir}/prs.json" ;;\n'
        f'  "pr create") cp "$body" "{bin_dir}/pr-body.md"; echo "https://example.invalid/pull/99" ;;\n'
        f'  "pr edit") cp "$body" "{bin_dir}/pr-body.md" ;;\n'
        f'  "issue list") cat "{bin_dir}/issues.json" ;;\n'
        f'  "issue create") cp "$body" "{bin_dir}/issue-body.md"; '
        f'"{sys.executable}" -c "{add_issue}" "{bin_dir}/issues.json" "$title" ;;\n'
        f'  "issue edit") cp "$body" "{bin_dir}/issue-body.md" ;;\n'
        '  "workflow run") ;;\n'
        '  "api "*) ;;\n'
        '  *) echo "fake gh: unexpected call: $*" >&2; exit 1 ;;\n'
        "esac\n", encoding="utf-8")
    gh.chmod(0o755)
    return bin_dir


def gh_calls(bin_dir: Path) -> list[str]:
    log = bin_dir / "gh.log"
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def own_pr(number: int, branch: str = "tfperf/results-main", owner: str = "acme") -> Doc:
    return {"number": number, "headRefName": branch, "isCrossRepository": False,
            "headRepositoryOwner": {"login": owner}}


def fork_pr(number: int, branch: str = "tfperf/results-main", owner: str = "mallory") -> Doc:
    return {"number": number, "headRefName": branch, "isCrossRepository": True,
            "headRepositoryOwner": {"login": owner}}


def copy_ci(dest: Path, *names: str) -> None:
    """This project's CI scripts (and the package, linked) in another repository."""
    (dest / "scripts" / "ci").mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy2(SCRIPTS / name, dest / "scripts" / "ci" / name)
    if not (dest / "bench").exists():
        (dest / "bench").symlink_to(ROOT / "bench")
    shutil.copy2(ROOT / ".gitignore", dest / ".gitignore")


def measured(n: int, *, runner: str = "box", median: float = 0.001, width: float = 0.02, day: int = 1,
             status: str = "ok") -> Doc:
    """Result ``n`` (``store_records.make_result``) with three samples whose median is ``median``
    and a 95% CI of ``median * (1 ± width)``, finished on day ``day`` of June 2026."""
    from store_records import make_result

    r = make_result(n, runner=runner, median=median, status=status, finished_at=f"2026-06-{day:02d}T12:00:00+00:00")
    if status == "ok":
        samples = [median * (1 - 2 * width), median, median * (1 + 2 * width)]
        r["timing"]["samples"] = samples
        r["timing"].pop("rounds", None)
        summary = r["timing"]["summary"]
        summary.update(n=3, median=median, min=samples[0], max=samples[-1], ci_low=median * (1 - width),
                       ci_high=median * (1 + width), mean=median, iqr=samples[-1] - samples[0])
        summary.pop("stdev", None)
    return r
