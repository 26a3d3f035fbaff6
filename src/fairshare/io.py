"""Atomic file output, tidy CSV/JSON helpers and run metadata.

Every artifact the pipeline writes goes through :func:`atomic_path`: the content is written to a temporary file
in the destination folder and renamed into place, so a killed job never leaves a file that looks finished.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

__all__ = [
    "TIDY_COLUMNS",
    "atomic_path",
    "naming_full_disk",
    "write_json",
    "read_json",
    "write_text",
    "write_csv",
    "write_npz",
    "save_figure",
    "save_figure_paths",
    "git_revision",
    "run_metadata",
]

if TYPE_CHECKING:
    import matplotlib.figure
    import pandas

TIDY_COLUMNS = ["paper", "experiment", "method", "seed", "round", "metric", "value"]


def _remove_stale_temporaries(target: Path, suffix: str) -> None:
    """Delete temporary files that an earlier, killed write of ``target`` left behind (``.name.XXXXXXXX<suffix>``).

    A job killed with SIGKILL cannot clean up; the next write of the same output (Snakemake runs one job per
    output) removes what it left.
    """
    pattern = re.compile(re.escape(f".{target.name}.") + r"[a-z0-9_]{8}" + re.escape(suffix) + "$")
    for leftover in target.parent.glob(f".{glob.escape(target.name)}.*"):
        if pattern.match(leftover.name):
            leftover.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it onto ``path`` only if the block succeeds."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    suffix = suffix or target.suffix or ".tmp"
    _remove_stale_temporaries(target, suffix)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix, dir=target.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the file the permissions a plain open() would
    tmp_path = Path(tmp)
    try:
        with naming_full_disk(target):  # the output, not the hidden temporary file
            yield tmp_path
            os.replace(tmp_path, target)
    except BaseException:  # also Ctrl-C and SIGTERM (the CLI turns them into exceptions): no temporary is left
        tmp_path.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def naming_full_disk(path: str | os.PathLike) -> Iterator[None]:
    """A full disk inside the block is an ``OSError`` (ENOSPC) naming ``path``: ``write()`` names no file, and the
    CLI reports the error in one line with the file's name."""
    try:
        yield
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), os.fspath(path)) from exc


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"cannot serialise {type(obj).__name__} to JSON")


def write_json(path: str | os.PathLike, obj: Any, *, check: bool = True) -> None:
    """Write ``obj`` as indented JSON, atomically (numpy scalars and arrays allowed), then its check file
    (``<path>.check.json``, :func:`fairshare.validate.write_check`) that :func:`read_json` verifies; ``check=False``
    for a final output that no step reads back (a DVC metrics file)."""
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(obj, indent=2, default=_json_default, sort_keys=False) + "\n")
    if check:
        from fairshare.validate import write_check

        write_check(path)


def read_json(path: str | os.PathLike, *, checked: bool = True) -> Any:
    """The JSON that :func:`write_json` wrote at ``path``, refused in one line (``CorruptFileError``, naming the file
    and the rule that rebuilds it) when it is unreadable, cut, or its bytes differ from its check file's record;
    ``checked=False`` for a committed input that no step writes (a reference fixture, which git keeps intact): no
    check file, still one line when it is unreadable or not JSON."""
    from fairshare.validate import read_checked_json, read_committed_json

    return read_checked_json(path) if checked else read_committed_json(path)


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def write_csv(path: str | os.PathLike, frame: pandas.DataFrame) -> None:
    """Write a pandas DataFrame as CSV without its index, atomically."""
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False)


def write_npz(path: str | os.PathLike, **arrays: np.ndarray) -> None:
    """Write arrays to a ``.npz`` file atomically (uncompressed, so loading is fast)."""
    with atomic_path(path, suffix=".npz") as tmp:
        np.savez(tmp, **arrays)


def _write_figure(fig: matplotlib.figure.Figure, out: Path, fmt: str) -> None:
    """Write ``fig`` to ``out`` in format ``fmt`` atomically; a PDF carries no creation date (same bytes every run)."""
    metadata = {"CreationDate": None} if fmt == "pdf" else None
    with atomic_path(out, suffix=f".{fmt}") as tmp:
        fig.savefig(tmp, format=fmt, dpi=150 if fmt == "png" else None, bbox_inches="tight", metadata=metadata)


def save_figure(
    fig: matplotlib.figure.Figure, stem: str | os.PathLike, formats: tuple[str, ...] = ("png", "pdf")
) -> list[Path]:
    """Save ``fig`` as ``stem.png`` and ``stem.pdf`` (atomically each) and return the paths.

    The files carry no creation date, so the same figure gives the same bytes on every run (DVC sees no change).
    """
    paths = [Path(f"{stem}.{fmt}") for fmt in formats]
    for out, fmt in zip(paths, formats):
        _write_figure(fig, out, fmt)
    return paths


def save_figure_paths(fig: matplotlib.figure.Figure, paths: Iterable[str | os.PathLike]) -> None:
    """Save ``fig`` to each of ``paths`` in the format its suffix names (``fig1.png``, ``fig1.pdf``), as
    :func:`save_figure` does: atomically, without a creation date. For rules that name every figure file."""
    for path in map(Path, paths):
        if not path.suffix:
            raise ValueError(f"figure path {path} has no suffix naming its format")
        _write_figure(fig, path, path.suffix.lstrip("."))


def git_revision(cwd: str | os.PathLike | None = None) -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def run_metadata(seed: int | None = None, **extra: Any) -> dict[str, Any]:
    """Library versions, platform, git revision and seed: stored beside every result for provenance."""
    versions = {}
    for name in ("numpy", "scipy", "pandas", "torch", "torchvision", "sklearn", "snakemake"):
        module = sys.modules.get(name)
        if module is not None:
            versions[name] = getattr(module, "__version__", "?")
    from fairshare import __version__

    return {
        "fairshare": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "versions": versions,
        "git_rev": git_revision(),
        "seed": seed,
        **extra,
    }
