"""`fairshare <group> <command>`: the only entry point the Snakemake rules call.

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
from collections.abc import Sequence
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


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(argv[0] if argv else None).parse_args(argv)
    try:
        args.func(args)
    except _user_errors() as exc:
        print(f"fairshare: error: {exc}", file=sys.stderr)
        return 2
    finally:
        job_stats.record(argv)
    return 0


def section(args: argparse.Namespace, key: str) -> Any:
    """One config block from ``--cfg``, with a clear error when the rule did not pass it."""
    if key not in args.cfg:
        raise CommandError(f"config block '{key}' was not passed with --cfg")
    return args.cfg[key]
