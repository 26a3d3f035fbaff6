"""`fairshare <group> <command>`: the only entry point the Snakemake rules call.

Several commands joined by ``+`` run one after another in one process (``fairshare aequa run ... + aequa run ...``).

Each paper's commands live in ``fairshare/papers/<paper>/commands.py``; the commands that belong to no paper
(``data``, ``report``) in ``fairshare/commands/``. A command module names its ``GROUP`` and ``HELP`` and registers
its subcommands; a command reads the config blocks the rule passes with ``--cfg`` (JSON), calls its paper's
experiment, claims and figures modules, and writes the outputs the rule names, atomically.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from fairshare import job_stats
from fairshare.config import ConfigError

# Command groups whose name is not their folder's name.
GROUP_ALIASES = {"aequa-ext": "aequa_extensions"}


class CommandError(RuntimeError):
    """A failure a user can fix; printed as one line without a traceback."""


def read_cfg(value: str) -> dict:
    """``--cfg``: a JSON file written by the workflow (``*.json``), or the JSON text itself."""
    if value.endswith(".json"):
        try:
            with open(value) as handle:
                return json.load(handle)
        except OSError as exc:
            raise argparse.ArgumentTypeError(f"cannot read the job's config file {value}: {exc.strerror}") from None
    return json.loads(value)


def cfg_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cfg",
        type=read_cfg,
        default={},
        help="the config blocks this command needs: a .json file (rules pass one) or JSON",
    )


def _user_errors() -> tuple[type[BaseException], ...]:
    from fairshare.data.datasets import DatasetUnavailableError
    from fairshare.data.partition import PartitionError

    return (CommandError, ConfigError, DatasetUnavailableError, PartitionError, FileNotFoundError)


def command_modules() -> dict[str, str]:
    """Group name (``aequa-ext``) -> module path, for every paper folder and every non-paper command module."""
    import fairshare.commands
    import fairshare.papers

    found = {}
    for info in pkgutil.iter_modules(fairshare.papers.__path__):
        if info.ispkg:
            found[info.name] = f"fairshare.papers.{info.name}.commands"
    for info in pkgutil.iter_modules(fairshare.commands.__path__):
        found[info.name] = f"fairshare.commands.{info.name}"
    return found


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser, or (``only``) just one group's: a rule's job then imports only its own paper's module."""
    parser = argparse.ArgumentParser(prog="fairshare", description=__doc__.splitlines()[0])
    groups = parser.add_subparsers(dest="group", required=True, metavar="GROUP")
    modules = command_modules()
    wanted = GROUP_ALIASES.get(only, only.replace("-", "_")) if only else None
    if wanted in modules:
        modules = {wanted: modules[wanted]}
    for name in sorted(modules):
        module = importlib.import_module(modules[name])
        group = groups.add_parser(module.GROUP, help=module.HELP, description=module.HELP)
        module.register(group.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    return parser


#: Separates commands that one process runs one after another (``fairshare A ... + B ...``): a rule that trains or
#: summarises several settings starts Python, torch and pandas once (issue 21). Each command is the same as alone.
THEN = "+"


_when_all_done: list[Callable[[], None]] = []
_in_main = False


def when_all_done(action: Callable[[], None]) -> None:
    """Run ``action`` once every command of this process has succeeded (at once outside :func:`main`). Commands
    remove their checkpoints this way: a killed job, whose outputs Snakemake deletes, then resumes every run of
    every command it holds from its last checkpoint, finished runs included, instead of training them again."""
    if _in_main:
        _when_all_done.append(action)
    else:
        action()


def discard_checkpoints_when_done(paths: Iterable[str]) -> None:
    """Remove these training checkpoints once every command of the process has succeeded (:func:`when_all_done`)."""
    paths = list(paths)

    def discard() -> None:
        from fairshare.learning.rounds import discard_checkpoint

        for path in paths:
            discard_checkpoint(path)

    when_all_done(discard)


def split_commands(argv: Sequence[str]) -> list[list[str]]:
    """``argv`` cut at every :data:`THEN` token."""
    commands: list[list[str]] = [[]]
    for token in argv:
        if token == THEN:
            commands.append([])
        else:
            commands[-1].append(token)
    return commands


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = split_commands(argv)
    if len(commands) > 1 and not all(commands):
        print(f"fairshare: error: a command is missing before or after '{THEN}'", file=sys.stderr)
        return 2
    # Every command is parsed before any runs: a typo in the last one costs no training.
    parsed = [build_parser(command[0] if command else None).parse_args(command) for command in commands]
    global _in_main
    _in_main = True
    try:
        for args in parsed:
            args.func(args)
        for action in _when_all_done:
            action()
    except _user_errors() as exc:
        print(f"fairshare: error: {exc}", file=sys.stderr)
        return 2
    finally:
        _in_main = False
        _when_all_done.clear()
        job_stats.record(argv)
    return 0


def section(args: argparse.Namespace, key: str) -> Any:
    """One config block from ``--cfg``, with a clear error when the rule did not pass it."""
    if key not in args.cfg:
        raise CommandError(f"config block '{key}' was not passed with --cfg")
    return args.cfg[key]
