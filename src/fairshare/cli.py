"""`fairshare <group> <command>`: the only entry point the Snakemake rules call.

Several commands joined by ``+`` run one after another in one process (``fairshare aequa run ... + aequa run ...``).
Groups are found, not listed: each paper's ``fairshare/papers/<paper>/commands.py`` and each public module of
``fairshare/commands/`` that names a ``GROUP`` (what command modules share: ``fairshare/pipeline/commands_shared.py``;
the one user-error type: ``fairshare/errors.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import pkgutil
import signal
import sys
from collections.abc import Iterator, Sequence
from types import ModuleType

from fairshare import __version__
from fairshare.errors import UserError
from fairshare.pipeline import heap, job_stats
from fairshare.pipeline.commands_shared import deferring_until_success

__all__ = ["GROUP_ALIASES", "THEN", "Parser", "command_modules", "build_parser", "split_commands", "Stopped", "main"]

# Command groups whose name is not their folder's name.
GROUP_ALIASES = {"aequa-ext": "aequa_extensions"}

#: Separates commands that one process runs one after another (``fairshare A ... + B ...``): a rule that trains or
#: summarises several settings starts Python, torch and pandas once (issue 21). Each command is the same as alone.
THEN = "+"


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: the problem and, for a missing or mistyped name, the choices."""

    def error(self, message: str) -> None:  # type: ignore[override]
        names = [a for a in self._actions if isinstance(a, argparse._SubParsersAction)]
        if names and message.startswith("the following arguments are required"):
            message += f" (choose from {', '.join(names[0].choices)})"
        self.exit(2, f"{self.prog}: error: {message}\n")


def command_modules() -> dict[str, str]:
    """Module name (``aequa_extensions``) -> module path, for every paper folder and every public command module."""
    import fairshare.commands
    import fairshare.papers

    found = {}
    for info in pkgutil.iter_modules(fairshare.papers.__path__):
        if info.ispkg:
            found[info.name] = f"fairshare.papers.{info.name}.commands"
    for info in pkgutil.iter_modules(fairshare.commands.__path__):
        if not info.name.startswith("_"):
            found[info.name] = f"fairshare.commands.{info.name}"
    return found


def _groups(only: str | None) -> list[ModuleType]:
    """The command modules that name a GROUP: all, or (``only``) just that group's when it is one."""
    modules = command_modules()
    wanted = GROUP_ALIASES.get(only, only.replace("-", "_")) if only else None
    names = [wanted] if wanted in modules else sorted(modules)
    loaded = [importlib.import_module(modules[name]) for name in names]
    return [module for module in loaded if hasattr(module, "GROUP")]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser, or (``only``) just one group's: a rule's job then imports only its own paper's module."""
    parser = Parser(prog="fairshare", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"fairshare {__version__}")
    groups = parser.add_subparsers(dest="group", required=True, metavar="GROUP")
    for module in _groups(only):
        group = groups.add_parser(module.GROUP, help=module.HELP, description=module.HELP)
        module.register(group.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    return parser


def split_commands(argv: Sequence[str]) -> list[list[str]]:
    """``argv`` cut at every :data:`THEN` token."""
    commands: list[list[str]] = [[]]
    for token in argv:
        if token == THEN:
            commands.append([])
        else:
            commands[-1].append(token)
    return commands


class Stopped(BaseException):
    """SIGINT or SIGTERM, raised where the process is, so that it unwinds (temporary files are removed)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, frame: object) -> None:
    """Raise :class:`Stopped` once; a second signal while the process unwinds is ignored."""
    for each in (signal.SIGINT, signal.SIGTERM):
        signal.signal(each, signal.SIG_IGN)
    raise Stopped(signum)


@contextlib.contextmanager
def _stopping_on_signals() -> Iterator[None]:
    """Inside, SIGTERM and SIGINT raise :class:`Stopped` (an ignored SIGINT stays ignored: a job of `./run pipeline`
    leaves Ctrl-C to it); the previous handlers come back after."""
    previous = {each: signal.getsignal(each) for each in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGTERM, _stop)
    if previous[signal.SIGINT] is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, _stop)
    try:
        yield
    finally:
        for each, handler in previous.items():
            signal.signal(each, handler)


def _run(parsed: Sequence[argparse.Namespace]) -> int:
    """Run the parsed commands; user errors, interruption and a full disk end in one line and an exit status."""
    try:
        with deferring_until_success():
            for args in parsed:
                args.func(args)
    except (UserError, FileNotFoundError) as exc:
        print(f"fairshare: error: {exc}", file=sys.stderr)
        return 2
    except Stopped as exc:
        name = signal.Signals(exc.signum).name
        print(f"fairshare: stopped by {name}; rerun the same command to resume", file=sys.stderr)
        return 128 + exc.signum
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        where = exc.filename or "the file it was writing"
        print(f"fairshare: error: no space left on the device for {where}; free some and rerun", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = split_commands(argv)
    if len(commands) > 1 and not all(commands):
        print(f"fairshare: error: a command is missing before or after '{THEN}'", file=sys.stderr)
        return 2
    # Every command is parsed before any runs: a typo in the last one costs no training.
    parsed = [build_parser(command[0] if command else None).parse_args(command) for command in commands]
    heap.keep_heap()  # training frees and regrows MB-sized blocks: glibc trims and refaults them (bench/heap_trim.py)
    try:
        with _stopping_on_signals():
            return _run(parsed)
    finally:
        job_stats.record(argv)
