"""`fairshare <group> <command>`: the only entry point the Snakemake rules call.

Each paper (and ``data``) has its own module here that registers its commands; a command reads the config
blocks the rule passes with ``--cfg`` (JSON), calls the library with plain arguments, and writes its outputs
atomically. This layer is the only one that knows both the config and the library.
"""
from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
from typing import Any, Sequence

from fairshare.config import ConfigError


class CommandError(RuntimeError):
    """A failure a user can fix; printed as one line without a traceback."""


def cfg_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cfg", type=json.loads, default={}, help="JSON of the config blocks this command needs (rules pass it)")


def _user_errors() -> tuple[type[BaseException], ...]:
    from fairshare.data.datasets import DatasetUnavailableError
    from fairshare.data.partition import PartitionError

    return (CommandError, ConfigError, DatasetUnavailableError, PartitionError, FileNotFoundError)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fairshare", description=__doc__.splitlines()[0])
    groups = parser.add_subparsers(dest="group", required=True, metavar="GROUP")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        group = groups.add_parser(module.GROUP, help=module.HELP, description=module.HELP)
        module.register(group.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except _user_errors() as exc:
        print(f"fairshare: error: {exc}", file=sys.stderr)
        return 2
    return 0


def section(args: argparse.Namespace, key: str) -> Any:
    """One config block from ``--cfg``, with a clear error when the rule did not pass it."""
    if key not in args.cfg:
        raise CommandError(f"config block '{key}' was not passed with --cfg")
    return args.cfg[key]
