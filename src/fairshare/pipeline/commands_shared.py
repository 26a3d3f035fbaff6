"""What every command module shares: its ``--cfg`` argument, config blocks and after-success actions.

A command module (``fairshare/papers/<paper>/commands.py``, ``fairshare/commands/<name>.py``) names its ``GROUP`` and
``HELP`` and registers its subcommands; a command reads the config blocks the rule passes with ``--cfg`` (JSON),
calls its paper's experiment, claims and figures modules, and writes the outputs the rule names, atomically.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from fairshare.errors import UserError

__all__ = [
    "read_cfg",
    "cfg_argument",
    "section",
    "deferring_until_success",
    "when_all_done",
    "discard_checkpoints_when_done",
    "warn_if_emulated_bf16",
]


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
    """Add ``--cfg`` (the config blocks a command reads) to a command's parser."""
    parser.add_argument(
        "--cfg",
        type=read_cfg,
        default={},
        help="the config blocks this command needs: a .json file (rules pass one) or JSON",
    )


def section(args: argparse.Namespace, key: str) -> Any:
    """One config block from ``--cfg``, with a clear error when the rule did not pass it."""
    if key not in args.cfg:
        raise UserError(f"config block '{key}' was not passed with --cfg")
    return args.cfg[key]


_deferred: list[Callable[[], None]] | None = None


@contextmanager
def deferring_until_success() -> Iterator[None]:
    """Inside: :func:`when_all_done` queues its actions; they run when the block ends without an exception."""
    global _deferred
    _deferred = []
    try:
        yield
        for action in _deferred:
            action()
    finally:
        _deferred = None


def when_all_done(action: Callable[[], None]) -> None:
    """Run ``action`` once every command of this process has succeeded (at once outside
    :func:`deferring_until_success`). Commands remove their checkpoints this way: a killed job, whose outputs Snakemake
    deletes, then resumes every run of every command it holds from its last checkpoint, finished runs included,
    instead of training them again."""
    if _deferred is None:
        action()
    else:
        _deferred.append(action)


def discard_checkpoints_when_done(paths: Iterable[str]) -> None:
    """Remove these training checkpoints once every command of the process has succeeded (:func:`when_all_done`)."""
    paths = list(paths)

    def discard() -> None:
        from fairshare.learning.rounds import discard_checkpoint

        for path in paths:
            discard_checkpoint(path)

    when_all_done(discard)


def warn_if_emulated_bf16(precision: str, device: Any, key: str) -> None:
    """Say in the job's log (stderr), in one line, that bf16 is emulated on this device and slower than fp32."""
    from fairshare.learning.device import bf16_warning

    line = bf16_warning(precision, device, key)
    if line:
        print(f"fairshare: {line}", file=sys.stderr, flush=True)
