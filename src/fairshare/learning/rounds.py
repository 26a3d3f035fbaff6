"""The round driver every training job goes through: per-round tidy metrics, progress, checkpoints, resume.

A training job is written as one function ``step(r, state) -> (state, metrics, samples)`` for round r = 0, 1, ...
and handed to :func:`run_rounds` with its initial state. After every round the driver appends the round's tidy rows
to a log beside the checkpoint; after the last round, and after any round that ends at least ``checkpoint_seconds``
after the previous checkpoint (:func:`checkpoint_seconds`: 30 s unless ``FAIRSHARE_CHECKPOINT_SECONDS`` says
otherwise; 0 is every round), it writes an atomic checkpoint (temporary file, then rename) holding only what
resuming needs: the state, torch's RNG state, the job's *settings hash* and where the rows log ends. A job killed
at any moment loses at most the rounds of its last ``checkpoint_seconds`` (a round of the default profile's small
models takes well under a second, and writing every round was 6-7 % of an Aequa job: docs/engine.md).
Rerun with the same settings, it resumes from there; rerun with other
settings (config, seed, data, number of rounds), or from a checkpoint whose content does not match its SHA-256
digest, the checkpoint is discarded with a one-line notice and training starts from round 0. Checkpoints hold plain
types, tensors and numpy arrays (stored as tensors) and are read with ``torch.load(weights_only=True)``, so a
checkpoint from elsewhere cannot run code.

A resumed run equals an uninterrupted one bit for bit when each round's randomness comes from generators derived
from (seed, round) (``fairshare.seeding``), as every caller in this package does; torch's global RNG state is saved
and restored as well, for models that draw from it (dropout).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, is_dataclass
from pathlib import Path
from time import monotonic
from typing import Any, TextIO

import numpy as np
import torch

from fairshare.errors import UserError
from fairshare.io import TIDY_COLUMNS, atomic_path, naming_full_disk, write_csv
from fairshare.learning.progress import Progress

__all__ = [
    "Metrics",
    "RoundStep",
    "CHECKPOINT_FORMAT",
    "settings_hash",
    "checkpoint_seconds",
    "save_checkpoint",
    "read_checkpoint",
    "load_checkpoint",
    "rows_path",
    "discard_checkpoint",
    "result_path",
    "keep_result",
    "kept_result",
    "RowLog",
    "tidy_rows",
    "metrics_frame",
    "run_rounds",
]

Metrics = Mapping[str, float] | Sequence[Mapping[str, Any]]
RoundStep = Callable[[int, Any], tuple[Any, Metrics, int]]
CHECKPOINT_FORMAT = 3
_NUMPY_TAG = "__numpy__"
CHECKPOINT_SECONDS_ENV = "FAIRSHARE_CHECKPOINT_SECONDS"
DEFAULT_CHECKPOINT_SECONDS = 30.0


def checkpoint_seconds() -> float:
    """The least wall-clock seconds between a run's checkpoints: ``FAIRSHARE_CHECKPOINT_SECONDS`` or 30.

    An operational setting, not a scientific one: results are the same bits whichever round a run resumes from.
    """
    text = os.environ.get(CHECKPOINT_SECONDS_ENV, "").strip()
    if not text:
        return DEFAULT_CHECKPOINT_SECONDS
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:  # also NaN
        raise UserError(f"{CHECKPOINT_SECONDS_ENV}={text!r}: give a number of seconds >= 0 (0: every round)")
    return value


def _canonical(obj: Any) -> Any:
    """A JSON-able stand-in for ``obj``: arrays and tensors by dtype, shape and a digest of their bytes."""
    if isinstance(obj, torch.Tensor):
        obj = obj.detach().cpu().numpy()
    if isinstance(obj, np.ndarray):
        data = np.ascontiguousarray(obj)
        return {
            "dtype": str(data.dtype),
            "shape": list(data.shape),
            "sha256": hashlib.sha256(data.tobytes()).hexdigest(),
        }
    if is_dataclass(obj) and not isinstance(obj, type):
        return _canonical(asdict(obj))
    if isinstance(obj, Mapping):
        return {str(k): _canonical(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_canonical(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    raise TypeError(f"cannot fingerprint a {type(obj).__name__}; pass plain values, arrays or tensors")


def settings_hash(*parts: Any) -> str:
    """A short digest of everything a training job's result depends on (config block, seed, data arrays, ...).

    Mappings are order-insensitive; arrays and tensors count by dtype, shape and content.
    """
    text = json.dumps(_canonical(list(parts)), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _encoded(obj: Any) -> Any:
    """``obj`` with numpy arrays and scalars as tagged tensors, so ``torch.load(weights_only=True)`` can read it."""
    if isinstance(obj, np.ndarray | np.generic):
        return {_NUMPY_TAG: torch.from_numpy(np.array(obj, copy=True)), "scalar": isinstance(obj, np.generic)}
    if isinstance(obj, Mapping):
        return _same_mapping(obj, {key: _encoded(value) for key, value in obj.items()})
    if isinstance(obj, list | tuple):
        return _same_sequence(obj, [_encoded(value) for value in obj])
    return obj


def _decoded(obj: Any) -> Any:
    """The inverse of :func:`_encoded`: tagged tensors back to numpy arrays and scalars of the same dtype."""
    if isinstance(obj, dict) and _NUMPY_TAG in obj:
        array = obj[_NUMPY_TAG].numpy()
        return array[()] if obj["scalar"] else array
    if isinstance(obj, dict):
        return _same_mapping(obj, {key: _decoded(value) for key, value in obj.items()})
    if isinstance(obj, list | tuple):
        return _same_sequence(obj, [_decoded(value) for value in obj])
    return obj


def _same_mapping(like: Mapping, items: dict) -> dict:
    """``items`` as an OrderedDict when ``like`` is one (a module's state dict), else a plain dict."""
    return OrderedDict(items) if isinstance(like, OrderedDict) else items


def _same_sequence(like: list | tuple, items: list) -> list | tuple:
    return tuple(items) if isinstance(like, tuple) else items


def _to_bytes(obj: Any) -> bytes:
    buffer = io.BytesIO()
    torch.save(_encoded(obj), buffer)
    return buffer.getvalue()


def _from_bytes(data: bytes) -> Any:
    """Plain types, tensors and (tagged) numpy arrays only: loading never runs code stored in the data."""
    return _decoded(torch.load(io.BytesIO(data), weights_only=True))


def save_checkpoint(path: str | Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` with the SHA-256 of its serialised bytes to a temporary file next to ``path``, then rename
    it over ``path``. The bytes are written by Python, so a full disk is an ``OSError`` naming the file."""
    body = _to_bytes(payload)
    sealed = _to_bytes(
        {
            "format": CHECKPOINT_FORMAT,
            "sha256": hashlib.sha256(body).hexdigest(),
            "body": torch.frombuffer(bytearray(body), dtype=torch.uint8),
        }
    )
    with atomic_path(path, suffix=".pt") as tmp:
        tmp.write_bytes(sealed)


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """The payload saved at ``path``; ``ValueError`` when the file is of another format or its content does not
    match its digest (a flipped bit). Plain types and tensors only: reading never runs code stored in the file."""
    sealed = torch.load(path, weights_only=True)
    if not isinstance(sealed, dict) or sealed.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"it is not a format-{CHECKPOINT_FORMAT} checkpoint")
    body = sealed["body"].numpy().tobytes()
    if hashlib.sha256(body).hexdigest() != sealed["sha256"]:
        raise ValueError("its content does not match its digest")
    return _from_bytes(body)


def load_checkpoint(path: str | Path, expected_hash: str) -> dict[str, Any] | None:
    """The checkpoint at ``path`` if it is intact and was written for ``expected_hash``; otherwise None.

    A checkpoint of other settings, an older format, a content that does not match its digest or an unreadable
    file is removed with a one-line notice.
    """
    path = Path(path)
    if not path.is_file():
        return None
    try:
        payload = read_checkpoint(path)
    except ValueError as exc:  # another format, or a content that does not match its digest
        reason = str(exc)
    except Exception as exc:  # truncated or foreign (e.g. a pickled object): never resume from it
        reason = f"it cannot be read ({type(exc).__name__})"
    else:
        found = payload.get("settings_hash")
        if found == expected_hash:
            return payload
        reason = f"it was written for other settings ({found} != {expected_hash})"
    print(f"fairshare: discarding checkpoint {path}: {reason}; starting from round 0", file=sys.stderr)
    discard_checkpoint(path)
    return None


def rows_path(checkpoint: str | Path) -> Path:
    """The append-only file beside ``checkpoint`` that holds the tidy rows of its finished rounds."""
    return Path(f"{checkpoint}.rows")


def discard_checkpoint(path: str | Path | None) -> None:
    """Remove a finished job's checkpoint, its rows file and its kept result (call after its outputs are written)."""
    if path is not None:
        for kept in (Path(path), rows_path(path), result_path(path), Path(f"{result_path(path)}.check.json")):
            kept.unlink(missing_ok=True)


def result_path(checkpoint: str | Path) -> Path:
    """The file beside ``checkpoint`` that keeps a finished run's result until its job's outputs are all written."""
    return Path(f"{checkpoint}.result.json")


def keep_result(checkpoint: str | Path, key: str, result: Mapping[str, Any]) -> None:
    """Keep a finished run's result fields beside its checkpoint under ``key`` (its settings and code version).

    Snakemake deletes every output of a job killed before its end, so a rerun would otherwise evaluate each
    finished run again from its final checkpoint (the Aequa scale job's standalone run: 300 client models, minutes).
    """
    from fairshare.io import write_json

    write_json(result_path(checkpoint), {"key": key, "result": result})


def kept_result(checkpoint: str | Path, key: str) -> dict[str, Any] | None:
    """The result :func:`keep_result` kept for ``key``; None when there is none. One kept for another key, or one
    that is unreadable or does not match its check file, is removed with a one-line notice."""
    from fairshare.io import read_json
    from fairshare.validate import CorruptFileError

    path = result_path(checkpoint)
    if not path.is_file():
        return None
    try:
        saved = read_json(path)
    except CorruptFileError as exc:
        reason = str(exc)
    else:
        if isinstance(saved, dict) and saved.get("key") == key:
            return saved["result"]
        reason = "it was kept for other settings or another code version"
    print(f"fairshare: discarding kept result {path}: {reason}; evaluating the run again", file=sys.stderr)
    path.unlink(missing_ok=True)
    Path(f"{path}.check.json").unlink(missing_ok=True)
    return None


class RowLog:
    """The tidy rows of a checkpointed run, one record per round appended to :func:`rows_path`.

    Records are an 8-byte length and the round's rows serialised like a checkpoint. The checkpoint stores the
    log's length and SHA-256 at its round, so it never holds the rows itself (its size does not grow with the
    run), and on resume the log is cut back to that length and checked against that digest.
    """

    def __init__(self, path: Path, size: int = 0, sha256: str | None = None) -> None:
        self.path = path
        self.digest = hashlib.sha256()
        self.rows: list[dict[str, Any]] = []
        data = self._prefix(size)
        self.digest.update(data)
        if sha256 is not None and self.digest.hexdigest() != sha256:
            raise ValueError(f"{path} does not match its checkpoint's digest")
        self._read(data)
        self.size = size
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "r+b" if size else "wb") as f:
            f.truncate(size)

    def _prefix(self, size: int) -> bytes:
        if not size:
            return b""
        with open(self.path, "rb") as f:
            data = f.read(size)
        if len(data) != size:
            raise ValueError(f"{self.path} is shorter than its checkpoint says")
        return data

    def _read(self, data: bytes) -> None:
        at = 0
        while at < len(data):
            length = int.from_bytes(data[at : at + 8], "little")
            self.rows += _from_bytes(data[at + 8 : at + 8 + length])
            at += 8 + length

    def append(self, rows: list[dict[str, Any]]) -> None:
        """Add one round's rows (in memory and on disk)."""
        blob = _to_bytes(rows)
        record = len(blob).to_bytes(8, "little") + blob
        with naming_full_disk(self.path), open(self.path, "ab") as f:
            f.write(record)
        self.digest.update(record)
        self.size += len(record)
        self.rows += rows

    def position(self) -> dict[str, Any]:
        """What a checkpoint records of the log: its length and SHA-256."""
        return {"rows_bytes": self.size, "rows_sha256": self.digest.hexdigest()}


def tidy_rows(metrics: Metrics, round_number: int, keys: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Long-format rows ``{**keys, round, metric, value}`` from ``{metric: value}``, or from rows that carry their own
    ``metric``/``value`` or other columns (e.g. ``task``)."""
    if isinstance(metrics, Mapping):
        return [{**keys, "round": round_number, "metric": m, "value": float(v)} for m, v in metrics.items()]
    return [{**keys, "round": round_number, **row} for row in metrics]


def metrics_frame(rows: Sequence[Mapping[str, Any]]) -> Any:
    """The rows as a pandas table with the tidy columns first."""
    import pandas as pd

    frame = pd.DataFrame(list(rows))
    first = [c for c in TIDY_COLUMNS if c in frame.columns]
    return frame[first + [c for c in frame.columns if c not in first]]


def headline(metrics: Metrics) -> str:
    """The round's metric worth a log line: the lowest ``accuracy`` of its rows (e.g. across the tasks of
    multi-model FL; a single row's accuracy), else up to three ``{name: value}`` metrics; empty when none."""
    if isinstance(metrics, Mapping):
        return ", ".join(f"{m} {float(v):.4g}" for m, v in list(metrics.items())[:3])
    accuracies = [row["accuracy"] for row in metrics if isinstance(row.get("accuracy"), int | float)]
    if not accuracies:
        return ""
    return f"{'min accuracy' if len(accuracies) > 1 else 'accuracy'} {min(accuracies):.4f}"


def run_rounds(
    step: RoundStep,
    initial_state: Any,
    rounds: int,
    *,
    settings: str,
    checkpoint: str | Path | None = None,
    keys: Mapping[str, Any] | None = None,
    metrics_csv: str | Path | None = None,
    desc: str = "rounds",
    progress: bool = True,
    metric: Callable[[Metrics], str] = headline,
    probe: Callable[[Any], str] | None = None,
    stream: TextIO | None = None,
    on_round: Callable[[int], None] | None = None,
    every_seconds: float | None = None,
) -> tuple[Any, list[dict[str, Any]]]:
    """Run ``state, metrics, samples = step(r, state)`` for r = 0 .. rounds-1; return the final state and every
    round's tidy metric rows.

    - ``state``: dicts, lists, tuples, plain values, tensors and numpy arrays (a state dict, or a dict of several
      things); only what the next round needs: per-round history belongs in the metrics rows.
    - ``metrics``: ``{name: value}`` or a list of rows; each row gets ``keys`` and ``round`` = r + 1.
    - ``samples``: client-samples trained in the round, shown as throughput on the progress bar.
    - ``settings``: :func:`settings_hash` of what the result depends on; the number of rounds is added here, so a
      checkpoint of a run with another length is never resumed.
    - ``checkpoint``: resume from it when it is intact and its hash matches, and rewrite it after the last round and
      after each round that ends ``every_seconds`` or more after the previous write (default
      :func:`checkpoint_seconds`; 0: every round); every round's rows go to :func:`rows_path` beside it at once.
    - ``metrics_csv``: rewrite the tidy table of all rounds so far after every round.
    - ``desc``: the label progress shows (paper, experiment, method, seed); ``metric(metrics)`` the round's headline
      (:func:`headline` by default; the last non-empty one is kept); ``stream`` where it goes (stderr): a tqdm bar
      on a terminal, otherwise a line every few seconds (:class:`~fairshare.learning.progress.Progress`).
      ``probe(state)``: the headline of a round whose metrics give none (e.g. the model's test accuracy), computed
      only when progress shows it; it must leave the state and every random generator as it found them.
    - ``on_round(r + 1)``: called once round r is done and saved (e.g. to time each round:
      ``bench/learning_curves.py``); it sees no state and changes nothing.
    """
    if rounds < 0:
        raise ValueError(f"rounds must be >= 0, got {rounds}")
    keys = dict(keys or {})
    digest = settings_hash(settings, rounds)
    start, state, log = _resume(checkpoint, digest, initial_state)
    every = checkpoint_seconds() if every_seconds is None else every_seconds
    saved_at = monotonic()
    rows = log.rows if log else []
    shown = Progress(rounds, desc, start=start, enabled=progress, stream=stream)
    latest = ""
    for r in range(start, rounds):
        state, metrics, samples = step(r, state)
        new_rows = tidy_rows(metrics, r + 1, keys)
        if log:
            log.append(new_rows)
            if r + 1 == rounds or monotonic() - saved_at >= every:
                _save_round(checkpoint, digest, r + 1, state, log)
                saved_at = monotonic()
        else:
            rows += new_rows
        if metrics_csv:
            write_csv(metrics_csv, metrics_frame(rows))
        if on_round is not None:
            on_round(r + 1)
        given = metric(metrics) if progress else ""
        latest = given or latest
        if given or probe is None or not progress:
            shown.update(samples, latest)
        else:
            shown.update(samples, lambda: probe(state) or latest)
    shown.close()
    if metrics_csv and not Path(metrics_csv).exists():  # resumed from the checkpoint of a finished run
        write_csv(metrics_csv, metrics_frame(rows))
    return state, rows


def _resume(checkpoint: str | Path | None, digest: str, initial_state: Any) -> tuple[int, Any, RowLog | None]:
    """(first round to run, its state, the rows log) from an intact checkpoint of these settings, or from round 0.

    Restores torch's RNG state (and CUDA's) as the checkpoint recorded it.
    """
    if not checkpoint:
        return 0, initial_state, None
    saved = load_checkpoint(checkpoint, digest)
    if saved is not None:
        try:
            log = RowLog(rows_path(checkpoint), saved["rows_bytes"], saved["rows_sha256"])
        except (OSError, ValueError) as exc:
            print(f"fairshare: discarding checkpoint {checkpoint}: {exc}; starting from round 0", file=sys.stderr)
            discard_checkpoint(checkpoint)
        else:
            torch.set_rng_state(saved["torch_rng"])
            if saved["cuda_rng"] is not None and torch.cuda.is_available():
                torch.cuda.set_rng_state_all(saved["cuda_rng"])
            return saved["round"], saved["state"], log
    return 0, initial_state, RowLog(rows_path(checkpoint))


def _save_round(checkpoint: str | Path, digest: str, done: int, state: Any, log: RowLog) -> None:
    """The checkpoint after round ``done``: what resuming needs, and where the rows log ends."""
    save_checkpoint(
        checkpoint,
        {
            "settings_hash": digest,
            "round": done,
            "state": state,
            "torch_rng": torch.get_rng_state(),
            "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
            **log.position(),
        },
    )
