"""The `fairshare` entry point: help and one-line errors, commands joined by `+`, and the per-job statistics behind
bench/startup_share.py."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys

import pytest

from fairshare.cli import command_modules, main, split_commands
from tests.conftest import REPO

REFERENCE = str(REPO / "workflow" / "reference" / "dp_coalitions_printed.yaml")


def test_split_commands_cuts_at_every_plus():
    assert split_commands(["a", "x", "+", "b", "+", "c", "y"]) == [["a", "x"], ["b"], ["c", "y"]]
    assert split_commands(["a", "+"]) == [["a"], []]


def test_joined_commands_write_what_each_writes_alone(tmp_path):
    alone = tmp_path / "alone.csv"
    assert main(["dp-coalitions", "examples", "--reference", REFERENCE, "--output", str(alone)]) == 0
    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    command = ["dp-coalitions", "examples", "--reference", REFERENCE, "--output"]
    assert main([*command, str(first), "+", *command, str(second)]) == 0
    assert first.read_bytes() == second.read_bytes() == alone.read_bytes()


def test_job_statistics_name_the_job_its_cpu_and_modules(tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRSHARE_JOB_STATS", str(tmp_path / "stats"))
    argv = ["dp-coalitions", "examples", "--reference", REFERENCE, "--output", str(tmp_path / "x.csv")]
    assert main(argv) == 0
    (record,) = [json.loads(p.read_text()) for p in (tmp_path / "stats").glob("*.json")]
    assert record["argv"] == argv and record["cpu_s"] > 0
    assert "fairshare.papers.dp_coalitions.commands" in record["modules"]
    monkeypatch.delenv("FAIRSHARE_JOB_STATS")
    assert main(argv) == 0 and len(list((tmp_path / "stats").glob("*.json"))) == 1  # off without the variable


def fairshare(*args: str) -> subprocess.CompletedProcess:
    """``python -m fairshare ARGS`` in a fresh process, as a rule runs it."""
    return subprocess.run([sys.executable, "-m", "fairshare", *args], capture_output=True, text=True, cwd=REPO)


def groups() -> list[str]:
    """Every command group: the command modules that name a GROUP (private helper modules name none)."""
    modules = [importlib.import_module(path) for path in command_modules().values()]
    return sorted(m.GROUP for m in modules if hasattr(m, "GROUP"))


def test_private_modules_are_no_groups():
    assert not [name for name in command_modules() if name.startswith("_")]
    assert {"data", "report", "mmfl", "aequa-ext"} <= set(groups())


def test_help_exits_0_and_lists_the_groups():
    """The installed entry point in a fresh process, as a user first meets it."""
    done = fairshare("--help")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("usage: fairshare") and "GROUP" in done.stdout


@pytest.mark.parametrize("group", groups())
def test_every_groups_help_exits_0_and_lists_its_commands(group, capsys):
    """Each group's help (in this process: the same parser and exit path, without a Python start per group)."""
    with pytest.raises(SystemExit) as stop:
        main([group, "--help"])
    out, err = capsys.readouterr()
    assert (stop.value.code, err) == (0, "")
    assert out.startswith(f"usage: fairshare {group}") and "COMMAND" in out


@pytest.mark.parametrize(
    ("args", "problem", "choices"),
    [
        ([], "the following arguments are required: GROUP", ["aequa-ext", "mmfl", "report"]),
        (["mmfll", "run"], "invalid choice: 'mmfll'", ["'aequa-ext'", "'mmfl'", "'report'"]),
        (["mmfl", "rnu"], "invalid choice: 'rnu'", ["'run'", "'summarize'", "'figures'"]),
        (["aequa-ext"], "the following arguments are required: COMMAND", ["participation", "scale"]),
    ],
    ids=["bare", "mistyped group", "mistyped command", "no command"],
)
def test_a_user_error_is_one_line_naming_the_problem_and_the_choices(args, problem, choices):
    done = fairshare(*args)
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("fairshare") and ": error: " in line and problem in line
    assert all(choice in line for choice in choices), line


@pytest.mark.parametrize(
    "error",
    [
        "fairshare.errors.UserError",
        "fairshare.pipeline.config.ConfigError",
        "fairshare.data.partition.PartitionError",
        "fairshare.data.datasets.DatasetUnavailableError",
        "fairshare.validate.CorruptFileError",
    ],
)
def test_every_layers_user_error_is_one_line(error, capsys):
    """A user's mistake raised in any layer is a :class:`fairshare.errors.UserError`: one line, no traceback."""
    from fairshare.cli import _run

    module, name = error.rsplit(".", 1)
    kind = getattr(importlib.import_module(module), name)

    def command(args):
        raise kind("the problem and its fix")

    assert _run([argparse.Namespace(func=command)]) == 2
    assert capsys.readouterr().err == "fairshare: error: the problem and its fix\n"


def test_a_programming_error_is_not_swallowed():
    from fairshare.cli import _run

    def command(args):
        raise ValueError("a bug")

    with pytest.raises(ValueError, match="a bug"):
        _run([argparse.Namespace(func=command)])


def options_without_help(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[str]:
    """Every option and positional argument without a help text, as "COMMAND PATH: --option" (or the positional's
    name), under ``parser`` and all its subcommands."""
    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                missing += options_without_help(sub, (*path, name))
        elif not isinstance(action, argparse._HelpAction) and not action.help:
            missing.append(f"{' '.join(path)}: {'/'.join(action.option_strings) or action.dest}")
    return missing


def test_every_option_of_every_command_has_help():
    from fairshare.cli import build_parser

    missing = options_without_help(build_parser())
    assert not missing, "no help text: " + "; ".join(missing)


def test_an_option_without_help_is_found():
    parser = argparse.ArgumentParser(prog="tool")
    parser.add_argument("--verbose", action="store_true", help="say more")
    commands = parser.add_subparsers(dest="command", required=True, help="the command")
    command = commands.add_parser("run")
    command.add_argument("input", help="the input file")
    command.add_argument("--output", required=True)
    command.add_argument("--seed")
    assert options_without_help(parser) == ["run: --output", "run: --seed"]


def test_version_prints_the_package_version():
    from fairshare import __version__

    done = fairshare("--version")
    assert done.returncode == 0 and done.stdout == f"fairshare {__version__}\n"
