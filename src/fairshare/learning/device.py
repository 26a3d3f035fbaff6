"""Where a training job runs and how torch is seeded for it."""

from __future__ import annotations

import torch

__all__ = ["resolve_device", "set_deterministic"]


def resolve_device(name: str = "auto") -> torch.device:
    """``auto``: CUDA when present, else CPU; ``cuda`` without a GPU is an error rather than a silent CPU run."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device 'cuda' requested but no CUDA device is available; use device: auto or cpu")
    return torch.device(name)


def set_deterministic(seed: int, strict: bool = False) -> None:
    """Seed torch and make cuDNN deterministic; ``strict`` also forbids nondeterministic kernels (slower on GPU).

    On CPU every kernel the engine uses is deterministic already; ``strict`` matters on CUDA (it sets
    ``CUBLAS_WORKSPACE_CONFIG`` as cuBLAS requires).
    """
    torch.manual_seed(seed)
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    if strict:
        import os

        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True)
