"""Resumable training loops: atomic per-round checkpoints, tidy per-round metrics, a progress bar with throughput.

:func:`run_rounds` drives any round-based training (FedAvg, multi-model FL, Aequa, reward baselines): after every
round it rewrites the tidy metrics CSV and the checkpoint (each atomically: temporary file, then rename), so a job
killed at any moment leaves the files of its last finished round, and the same call restarted resumes from there.
A resumed run equals an uninterrupted one exactly when each round's randomness comes from generators derived from
(seed, round) (``fairshare.seeding``), as the engine's callers do; torch's global RNG state is saved and restored
as well, for models that draw from it (dropout).
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import torch
from tqdm import tqdm

from fairshare.io import TIDY_COLUMNS, atomic_path, write_csv

Metrics = Mapping[str, float] | Sequence[Mapping[str, Any]]
RoundFn = Callable[[int, Any], tuple[Any, Metrics, int]]


def save_checkpoint(path: str | Path, state: dict[str, Any]) -> None:
    """``torch.save`` to a temporary file next to ``path``, then rename it over ``path``."""
    with atomic_path(path, suffix=".pt") as tmp:
        torch.save(state, tmp)


def load_checkpoint(path: str | Path) -> dict[str, Any] | None:
    """The saved state, or None when there is no checkpoint yet."""
    path = Path(path)
    if not path.is_file():
        return None
    return torch.load(path, weights_only=False)


def tidy_rows(metrics: Metrics, round_number: int, keys: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Long-format rows ``{**keys, round, metric, value}`` from ``{metric: value}`` or from rows that carry their own
    ``metric``, ``value`` and extra key columns (e.g. ``task``)."""
    if isinstance(metrics, Mapping):
        return [{**keys, "round": round_number, "metric": m, "value": float(v)} for m, v in metrics.items()]
    return [{**keys, "round": round_number, **row} for row in metrics]


def _write_metrics(path: str | Path, rows: list[dict[str, Any]]) -> None:
    import pandas as pd

    frame = pd.DataFrame(rows)
    first = [c for c in TIDY_COLUMNS if c in frame.columns]
    write_csv(path, frame[first + [c for c in frame.columns if c not in first]])


def run_rounds(round_fn: RoundFn, initial_state: Any, rounds: int, *, checkpoint: str | Path | None = None,
               metrics_csv: str | Path | None = None, keys: Mapping[str, Any] | None = None, desc: str = "rounds",
               progress: bool = True) -> tuple[Any, list[dict[str, Any]]]:
    """Run ``rounds`` rounds of ``state, metrics, samples = round_fn(r, state)`` (r = 0, 1, ...); return the final
    state and every round's tidy metric rows.

    - ``state``: anything ``torch.save`` can store (e.g. the global state dict, or a dict of several).
    - ``metrics``: ``{name: value}`` or a list of rows with ``metric``, ``value`` and extra key columns; rows get
      ``keys`` (e.g. paper, experiment, method, seed) and ``round`` = r + 1.
    - ``samples``: client-samples trained in the round, for the progress bar's throughput.
    With ``checkpoint``, an existing checkpoint is resumed (its rounds are not run again; a checkpoint of a longer
    run is returned as it is) and a new one is written after every round. With ``metrics_csv``, the tidy table of
    all rounds so far is rewritten after every round.
    """
    keys = dict(keys or {})
    saved = load_checkpoint(checkpoint) if checkpoint else None
    if saved is None:
        start, state, rows = 0, initial_state, []
    else:
        start, state, rows = saved["round"], saved["state"], saved["rows"]
        torch.set_rng_state(saved["torch_rng"])
        if saved.get("cuda_rng") is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(saved["cuda_rng"])
    bar = tqdm(total=rounds, initial=min(start, rounds), desc=desc, unit="round", disable=not progress or None, leave=False)
    for r in range(start, rounds):
        began = time.perf_counter()
        state, metrics, samples = round_fn(r, state)
        rows += tidy_rows(metrics, r + 1, keys)
        if metrics_csv:
            _write_metrics(metrics_csv, rows)
        if checkpoint:
            save_checkpoint(checkpoint, {"round": r + 1, "state": state, "rows": rows, "torch_rng": torch.get_rng_state(),
                                         "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None})
        bar.update(1)
        shown = {m: f"{v:.4g}" for m, v in list(metrics.items())[:3]} if isinstance(metrics, Mapping) else {}
        bar.set_postfix(samples_per_s=f"{samples / max(time.perf_counter() - began, 1e-9):.0f}", **shown)
    bar.close()
    if metrics_csv and not Path(metrics_csv).exists():  # resumed from the checkpoint of a finished run
        _write_metrics(metrics_csv, rows)
    return state, rows
