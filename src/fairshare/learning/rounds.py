"""The round driver every training job goes through: per-round tidy metrics, progress, checkpoints, resume.

A training job is written as one function ``step(r, state) -> (state, metrics, samples)`` for round r = 0, 1, ...
and handed to :func:`run_rounds` with its initial state. After every round the driver writes an atomic checkpoint
(temporary file, then rename) holding the state, the tidy rows so far, torch's RNG state and the job's
*settings hash*; a job killed at any moment leaves its last finished round. Rerun with the same settings, it
resumes from there; rerun with other settings (config, seed, data, number of rounds), the stale checkpoint is
discarded with a one-line notice and training starts from round 0.

A resumed run equals an uninterrupted one bit for bit when each round's randomness comes from generators derived
from (seed, round) (``fairshare.seeding``), as every caller in this package does; torch's global RNG state is saved
and restored as well, for models that draw from it (dropout).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from fairshare.io import TIDY_COLUMNS, atomic_path, write_csv

Metrics = Mapping[str, float] | Sequence[Mapping[str, Any]]
RoundStep = Callable[[int, Any], tuple[Any, Metrics, int]]
CHECKPOINT_FORMAT = 2


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


def save_checkpoint(path: str | Path, payload: dict[str, Any]) -> None:
    """``torch.save`` to a temporary file next to ``path``, then rename it over ``path``."""
    with atomic_path(path, suffix=".pt") as tmp:
        torch.save(payload, tmp)


def load_checkpoint(path: str | Path, expected_hash: str) -> dict[str, Any] | None:
    """The checkpoint at ``path`` if it was written for ``expected_hash``; otherwise None.

    A checkpoint of other settings, an older format or an unreadable file is removed with a one-line notice.
    """
    path = Path(path)
    if not path.is_file():
        return None
    try:
        payload = torch.load(path, weights_only=False)
    except Exception as exc:  # a truncated or foreign file: never resume from it
        reason = f"it cannot be read ({type(exc).__name__})"
    else:
        found = payload.get("settings_hash") if isinstance(payload, dict) else None
        if isinstance(payload, dict) and payload.get("format") == CHECKPOINT_FORMAT and found == expected_hash:
            return payload
        reason = f"it was written for other settings ({found} != {expected_hash})"
    print(f"fairshare: discarding checkpoint {path}: {reason}; starting from round 0", file=sys.stderr)
    path.unlink(missing_ok=True)
    return None


def discard_checkpoint(path: str | Path | None) -> None:
    """Remove a finished job's checkpoint (call after its outputs are written)."""
    if path is not None:
        Path(path).unlink(missing_ok=True)


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


def _progress_bar(rounds: int, start: int, desc: str, progress: bool) -> tqdm:
    interactive = sys.stderr.isatty()
    return tqdm(
        total=rounds,
        initial=min(start, rounds),
        desc=desc,
        unit="round",
        disable=not progress,
        leave=False,
        mininterval=0.5 if interactive else 30.0,
        file=sys.stderr,
    )


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
) -> tuple[Any, list[dict[str, Any]]]:
    """Run ``state, metrics, samples = step(r, state)`` for r = 0 .. rounds-1; return the final state and every
    round's tidy metric rows.

    - ``state``: anything ``torch.save`` can store (a state dict, or a dict of several things).
    - ``metrics``: ``{name: value}`` or a list of rows; each row gets ``keys`` and ``round`` = r + 1.
    - ``samples``: client-samples trained in the round, shown as throughput on the progress bar.
    - ``settings``: :func:`settings_hash` of what the result depends on; the number of rounds is added here, so a
      checkpoint of a run with another length is never resumed.
    - ``checkpoint``: resume from it when its hash matches, and rewrite it after every round.
    - ``metrics_csv``: rewrite the tidy table of all rounds so far after every round.
    """
    if rounds < 0:
        raise ValueError(f"rounds must be >= 0, got {rounds}")
    keys = dict(keys or {})
    digest = settings_hash(settings, rounds)
    saved = load_checkpoint(checkpoint, digest) if checkpoint else None
    if saved is None:
        start, state, rows = 0, initial_state, []
    else:
        start, state, rows = saved["round"], saved["state"], saved["rows"]
        torch.set_rng_state(saved["torch_rng"])
        if saved.get("cuda_rng") is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(saved["cuda_rng"])
    bar = _progress_bar(rounds, start, desc, progress)
    for r in range(start, rounds):
        began = time.perf_counter()
        state, metrics, samples = step(r, state)
        rows += tidy_rows(metrics, r + 1, keys)
        if metrics_csv:
            write_csv(metrics_csv, metrics_frame(rows))
        if checkpoint:
            save_checkpoint(
                checkpoint,
                {
                    "format": CHECKPOINT_FORMAT,
                    "settings_hash": digest,
                    "round": r + 1,
                    "state": state,
                    "rows": rows,
                    "torch_rng": torch.get_rng_state(),
                    "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
                },
            )
        bar.update(1)
        shown = {m: f"{float(v):.4g}" for m, v in list(metrics.items())[:3]} if isinstance(metrics, Mapping) else {}
        bar.set_postfix(samples_per_s=f"{samples / max(time.perf_counter() - began, 1e-9):.0f}", **shown)
    bar.close()
    if metrics_csv and not Path(metrics_csv).exists():  # resumed from the checkpoint of a finished run
        write_csv(metrics_csv, metrics_frame(rows))
    return state, rows
