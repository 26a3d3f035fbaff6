"""What ``./run pipeline`` does before Snakemake starts, besides validating the config: remove every dataset cache
that fails its check, so that its rule rebuilds it.

Snakemake decides reruns from files, not from their content: a truncated or altered cache with an old timestamp
looks finished, and every consumer that reads it later fails. Removing it makes the cache a missing output: its
``dataset`` rule runs again, and every job downstream of it reruns (Snakemake reruns what depends on a job it runs).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from fairshare.data.datasets import DatasetUnavailableError, load_cache

__all__ = ["failing_caches", "remove_failing_caches"]


def failing_caches(processed_dir: str | Path) -> Iterator[tuple[Path, str]]:
    """Each cache under ``processed_dir`` that fails its check (:func:`load_cache`), with the reason."""
    for path in sorted(Path(processed_dir).glob("*.npz")):
        try:
            load_cache(path)
        except DatasetUnavailableError as exc:
            yield path, str(exc)


def remove_failing_caches(processed_dir: str | Path, dry_run: bool = False) -> list[str]:
    """Remove (unless ``dry_run``) every cache under ``processed_dir`` that fails its check; one line about each."""
    lines = []
    for path, reason in failing_caches(processed_dir):
        if not dry_run:
            path.unlink()
        done = "would be removed (dry run)" if dry_run else "removed: its rule rebuilds it"
        lines.append(f"{reason.split('; ')[0]}; {done}")
    return lines
