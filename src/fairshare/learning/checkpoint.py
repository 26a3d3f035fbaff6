"""Atomic per-round checkpoints: write to a temporary file in the same folder, then rename over the old one."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from fairshare.io import atomic_path


def save_checkpoint(path: str | Path, state: dict[str, Any]) -> None:
    with atomic_path(path, suffix=".pt") as tmp:
        torch.save(state, tmp)


def load_checkpoint(path: str | Path) -> dict[str, Any] | None:
    """The saved state, or None when there is no checkpoint yet."""
    path = Path(path)
    if not path.is_file():
        return None
    return torch.load(path, weights_only=False)
