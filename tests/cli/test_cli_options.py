"""The CLI's options (bench/tfperf/cli/shared_options.py): an option that several subcommands
take says the same in each of their helps, and means the same in each (``{cpu}`` in
--runner, ``~`` in --data)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from tfperf.cli import build_parser
from tfperf.cli.shared_options import run_options, runner_label
from tfperf.measure import envinfo

# The one option name that two subcommands give two meanings: advise's output folder and the
# folder notebooks writes the committed notebooks to.
TWO_MEANINGS = {"--out"}


def subcommands() -> dict[str, argparse.ArgumentParser]:
    [sub] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_an_option_has_one_help_text_in_every_subcommand() -> None:
    helps: dict[str, dict[str | None, list[str]]] = {}
    for command, parser in subcommands().items():
        for action in parser._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help", *TWO_MEANINGS):
                    helps.setdefault(option, {}).setdefault(action.help, []).append(command)
    assert {option: by_help for option, by_help in helps.items() if len(by_help) > 1} == {}
    assert {option for option in helps if len(helps[option]) == 1 and None in helps[option]} == set()
    assert sorted(command for commands in helps["--runner"].values() for command in commands) == [
        "advise", "compare", "run"]


@pytest.mark.parametrize("argv", [["run"], ["compare"], ["advise", "model.keras"]])
def test_runner_cpu_becomes_this_machines_cpu_class_in_every_command_that_measures(
        argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(envinfo, "this_cpu_class", lambda: "amd-avx2")
    args = build_parser().parse_args([*argv, "--runner", "box-{cpu}"])
    assert runner_label(args) == "box-amd-avx2"
    if argv[0] != "advise":
        assert run_options(args).runner == "box-amd-avx2"


def _home(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    monkeypatch.setenv("HOME", str(home))             # what os.path.expanduser reads on POSIX
    monkeypatch.setenv("USERPROFILE", str(home))      # and on Windows


@pytest.mark.parametrize("argv", [["run"], ["compare"], ["answers"], ["merge", "a.json"],
                                  ["relabel", "--to", "x", "a.json"]])
def test_data_expands_the_home_folder_in_every_command(argv: list[str], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _home(monkeypatch, tmp_path)
    args = build_parser().parse_args([*argv, "--data", "~/d"])
    assert Path(args.data) == tmp_path / "d"


def test_defaults_that_differ_between_subcommands(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _home(monkeypatch, tmp_path)
    parse = build_parser().parse_args
    assert parse(["run"]).data == "data" and parse(["answers"]).data == "data"
    assert Path(parse(["compare"]).data) == tmp_path / ".cache" / "tfperf"
    with pytest.raises(SystemExit):
        parse(["compare", "--profile", "history"])          # compare measures quick or full only
    assert parse(["run", "--profile", "history"]).profile == "history"
