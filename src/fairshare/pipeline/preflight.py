"""What ``./run pipeline`` does before Snakemake starts, besides validating the config: remove every dataset cache
that fails its check (or holds another dataset or layout than the config asks for), so that its rule rebuilds it.

Snakemake decides reruns from files, not from their content: a truncated or altered cache with an old timestamp
looks finished, and every consumer that reads it later fails. Removing it makes the cache a missing output: its
``dataset`` rule runs again, and every job downstream of it reruns (Snakemake reruns what depends on a job it runs).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from fairshare.data.datasets import CACHE_NAMES, DatasetUnavailableError, Layout, load_cache

__all__ = ["layouts", "failing_caches", "remove_failing_caches"]


def layouts(cfg: Mapping[str, Any]) -> dict[str, Layout]:
    """The layout the config asks of each cache whose layout the config sets: ``synthetic``'s features and classes
    (``data.synthetic``); the other datasets' are fixed (:data:`fairshare.data.datasets.SAMPLE_SHAPES`)."""
    synthetic = cfg["data"]["synthetic"]
    return {"synthetic": ((synthetic["n_features"],), synthetic["n_classes"])}


def failing_caches(
    processed_dir: str | Path, expected: Mapping[str, Layout] | None = None
) -> Iterator[tuple[Path, str]]:
    """Each cache under ``processed_dir`` that fails its check (:func:`load_cache`: its digest, the dataset it holds
    against its file name, its layout against ``expected`` or the dataset's fixed one), with the reason."""
    for path in sorted(Path(processed_dir).glob("*.npz")):
        if path.stem not in CACHE_NAMES:  # not a dataset cache (FEMNIST's writer ids)
            continue
        try:
            load_cache(path, expected=(expected or {}).get(path.stem))
        except DatasetUnavailableError as exc:
            yield path, str(exc)


def remove_failing_caches(
    processed_dir: str | Path, dry_run: bool = False, expected: Mapping[str, Layout] | None = None
) -> list[str]:
    """Remove (unless ``dry_run``) every cache under ``processed_dir`` that fails its check; one line about each."""
    lines = []
    for path, reason in failing_caches(processed_dir, expected):
        if not dry_run:
            path.unlink()
        done = "would be removed (dry run)" if dry_run else "removed: its rule rebuilds it"
        lines.append(f"{reason.split('; ')[0]}; {done}")
    return lines
