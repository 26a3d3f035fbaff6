"""Checks of what a step reads, where it is read: tidy CSVs and JSON files against their check file, dataset caches'
arrays.

A CSV that a later step reads (a training run's rows, a claims file) is written with :func:`write_checked_csv`: the
CSV, then beside it ``<file>.check.json`` holding its row count and the SHA-256 of its bytes (no timestamp, so a
rerun writes the same bytes). The rule that writes the CSV declares the check file as an output too.
:func:`read_checked_csv` refuses a CSV whose bytes or row count differ from its check file (a file cut at a row
boundary, a half-written copy), whose columns are not the expected ones, or whose typed columns do not parse; the
error is one line naming the file and the rule that makes it, never a traceback and never a table with rows missing.

JSON files get the same contract (:func:`write_check`, :func:`read_checked_json`): ``fairshare.io.write_json`` writes
the check file (the SHA-256 of the bytes) beside every JSON it writes, unless told it is a final output no step reads
(DVC metrics), and ``fairshare.io.read_json`` refuses a JSON whose bytes differ from it, so a run record edited by
hand, even into valid JSON, or cut in half, is one line naming it and the rule that rebuilds it.
"""

from __future__ import annotations

import hashlib
import json
import os
from base64 import urlsafe_b64encode
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from fairshare.errors import UserError

__all__ = [
    "CHECK_SUFFIX",
    "CorruptFileError",
    "check_path",
    "producer",
    "corrupt",
    "write_check",
    "recorded_digest",
    "write_checked_csv",
    "read_checked_csv",
    "read_checked_json",
    "read_committed_json",
    "check_frame",
    "read_runs",
    "cache_problem",
]

if TYPE_CHECKING:
    import pandas

CHECK_SUFFIX = ".check.json"


class CorruptFileError(UserError):
    """A file a step reads that fails its check; the message names the file and the rule that rebuilds it."""


def check_path(path: str | os.PathLike) -> Path:
    """The check file of CSV ``path``: ``<path>.check.json``."""
    return Path(f"{path}{CHECK_SUFFIX}")


def producer(path: str | os.PathLike) -> str:
    """The Snakemake rule that wrote ``path`` (from Snakemake's record in ``.snakemake/metadata/``), else the path
    itself: either is what ``--forcerun`` takes."""
    name = urlsafe_b64encode(os.path.normpath(path).encode()).decode()
    try:
        return str(json.loads(Path(".snakemake", "metadata", name).read_text())["rule"])
    except (OSError, ValueError, KeyError, TypeError):
        return str(path)


def corrupt(path: str | os.PathLike, why: str) -> CorruptFileError:
    """The one-line error for ``path`` failing its check because ``why``; the fix repeats the ``--configfile``
    files of the run (``FAIRSHARE_RERUN_ARGS``, which ``./run pipeline`` sets), so it can be copied as it is."""
    again = os.environ.get("FAIRSHARE_RERUN_ARGS", "").strip()
    again = f" {again}" if again else ""
    return CorruptFileError(f"{path} is malformed ({why}); rerun: ./run pipeline{again} --forcerun {producer(path)}")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_check(path: str | os.PathLike, **extra: int) -> None:
    """Write the check file of ``path`` (atomically): the SHA-256 of its bytes, and ``extra`` (a CSV's row count)."""
    from fairshare.io import write_text

    record = {**extra, "sha256": _sha256(Path(path).read_bytes())}
    write_text(check_path(path), json.dumps(record, indent=2) + "\n")


def recorded_digest(path: str | os.PathLike) -> tuple[bytes, dict]:
    """The bytes of ``path`` and what its check file records, after checking that the two agree; raises
    :class:`CorruptFileError` for an unreadable file, a missing or unreadable check file, or differing bytes."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise corrupt(path, f"unreadable: {exc.strerror}") from None
    try:
        recorded = json.loads(check_path(path).read_text())
        digest = str(recorded["sha256"])
    except (OSError, ValueError, KeyError, TypeError):
        raise corrupt(path, f"its check file {check_path(path)} is missing or unreadable") from None
    if _sha256(data) != digest:
        rows = f" ({recorded['rows']} rows)" if "rows" in recorded else ""
        raise corrupt(path, f"its bytes differ from those its check file records{rows}")
    return data, recorded


def read_checked_json(path: str | os.PathLike) -> object:
    """The JSON at ``path`` after its check (:func:`recorded_digest`); raises :class:`CorruptFileError` otherwise."""
    data, _ = recorded_digest(path)
    try:
        return json.loads(data)
    except ValueError as exc:
        raise corrupt(path, f"not valid JSON: {str(exc).splitlines()[0]}") from None


def read_committed_json(path: str | os.PathLike) -> object:
    """The JSON of a committed input (no check file: git keeps it), or one line naming it and how to restore it."""
    try:
        return json.loads(Path(path).read_bytes())
    except OSError as exc:
        why = f"unreadable: {exc.strerror}"
    except ValueError as exc:
        why = f"not valid JSON: {str(exc).splitlines()[0]}"
    raise UserError(f"{path} is malformed ({why}); restore the committed file: git checkout -- {path}")


def write_checked_csv(path: str | os.PathLike, frame: pandas.DataFrame) -> None:
    """Write ``frame`` as CSV (atomically), then its check file: its row count and the digest of its bytes."""
    from fairshare.io import write_csv

    write_csv(path, frame)
    write_check(path, rows=len(frame))


def read_checked_csv(path: str | os.PathLike, types: Mapping[str, str], **read_kwargs) -> pandas.DataFrame:
    """The CSV at ``path`` (read with ``pandas.read_csv(path, **read_kwargs)``) after its checks: bytes and row count
    as its check file records, exactly the columns of ``types`` in that order, each parsing as its type (``str``,
    ``int``, ``float``, ``bool``). Raises :class:`CorruptFileError` otherwise."""
    import pandas as pd

    _, recorded = recorded_digest(path)
    try:
        rows = int(recorded["rows"])
    except (KeyError, TypeError, ValueError):
        raise corrupt(path, f"its check file {check_path(path)} records no row count") from None
    try:
        frame = pd.read_csv(path, **read_kwargs)
    except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise corrupt(path, str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
    check_frame(path, frame, types, rows)
    return frame


def check_frame(path: str | os.PathLike, frame: pandas.DataFrame, types: Mapping[str, str], rows: int) -> None:
    """Raise :class:`CorruptFileError` unless ``frame`` has the columns and types of ``types`` and ``rows`` rows."""
    import pandas as pd

    columns = list(frame.columns)
    if columns != list(types):
        raise corrupt(path, f"columns {columns}, expected {list(types)}")
    if len(frame) != rows:
        raise corrupt(path, f"{len(frame)} rows, its check file records {rows}")
    for column, kind in types.items():
        if kind == "str":
            continue
        if kind == "bool":
            bad = ~frame[column].isin([True, False])
            if bad.any():
                raise corrupt(path, f"column {column} holds {frame[column][bad].iloc[0]!r}, not bool")
            continue
        values = pd.to_numeric(frame[column], errors="coerce")
        bad = values.isna() & frame[column].notna()
        if kind == "int":
            bad |= values.notna() & (values % 1 != 0)
        if bad.any():
            raise corrupt(path, f"column {column} holds {frame[column][bad].iloc[0]!r}, not {kind}")


def read_runs(paths: Sequence[str | os.PathLike], types: Mapping[str, str]) -> pandas.DataFrame:
    """Every training run's rows, each file checked against its check file and the columns ``types`` names
    (:func:`read_checked_csv`), stacked in file order."""
    import pandas as pd

    return pd.concat([read_checked_csv(p, types) for p in paths], ignore_index=True)


def cache_problem(
    arrays: Mapping[str, np.ndarray], n_classes: int | None, sample_shape: Sequence[int] | None = None
) -> str | None:
    """What is wrong with a dataset cache's arrays, or None: ``x`` of 2 or 4 dimensions (``uint8`` images, ``float32``
    features or ``int64`` token ids), the same per-sample shape and dtype in both splits (``sample_shape`` when
    given), ``int64`` labels one per sample, and every label within the classes (``n_classes``, the dataset's count
    when known, else the cache's)."""
    classes = len(arrays["classes"])
    if n_classes is not None and classes != n_classes:
        return f"{classes} class names, the dataset has {n_classes}"
    if sample_shape is not None and arrays["x_train"].shape[1:] != tuple(sample_shape):
        return f"samples of shape {arrays['x_train'].shape[1:]}, the dataset's are {tuple(sample_shape)}"
    for split in ("train", "test"):
        x, y = arrays[f"x_{split}"], arrays[f"y_{split}"]
        if x.ndim not in (2, 4) or x.dtype not in (np.uint8, np.float32, np.int64):
            return f"x_{split} is {x.dtype} of shape {x.shape}, not 2-D or 4-D uint8, float32 or int64"
        if y.dtype != np.int64 or y.shape != (len(x),):
            return f"y_{split} is {y.dtype} of shape {y.shape} for {len(x)} samples"
        if len(y) and (y.min() < 0 or y.max() >= classes):
            return f"y_{split} has labels {y.min()}..{y.max()} outside the {classes} classes"
    if arrays["x_train"].shape[1:] != arrays["x_test"].shape[1:] or arrays["x_train"].dtype != arrays["x_test"].dtype:
        return "x_train and x_test differ in per-sample shape or dtype"
    return None
