"""Where a training job runs and how torch is seeded for it."""

from __future__ import annotations

import torch

from fairshare.seeding import torch_seed

__all__ = ["bf16_warning", "native_bf16", "resolve_device", "seed_run", "set_deterministic"]


def resolve_device(name: str = "auto") -> torch.device:
    """``auto``: CUDA when present, else CPU; ``cuda`` without a GPU is an error rather than a silent CPU run."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device 'cuda' requested but no CUDA device is available; use device: auto or cpu")
    return torch.device(name)


def native_bf16(device: torch.device) -> bool:
    """Whether ``device`` computes bfloat16 in hardware: a CUDA GPU that supports it, or a CPU with AVX-512 BF16 or
    AMX instructions. Elsewhere oneDNN emulates bf16, and training in bf16 is slower than in fp32 (measured with
    ``bench/engine_throughput.py`` on an AVX2-only AMD EPYC: 146 against 1,032 client-samples/s, docs/engine.md)."""
    if device.type == "cuda":
        return torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    cpu = torch.cpu
    return any(getattr(cpu, name, lambda: False)() for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported"))


def bf16_warning(precision: str, device: torch.device, key: str) -> str | None:
    """One line for the job's log when ``precision`` is bf16 on a device that only emulates it (``key``: the config
    key to change), else None. The run goes on in bf16: the precision is part of the results' settings."""
    if precision != "bf16" or native_bf16(device):
        return None
    return (
        f"warning: {key} is bf16 but this {device.type.upper()} has no native bfloat16 (AVX-512 BF16 or AMX); "
        f"emulated bf16 trains several times slower than fp32 here: set {key}: fp32"
    )


def seed_run(root_seed: int, stream: str, *keys: int) -> None:
    """Seed torch (and make cuDNN deterministic) where a training run starts, from the run's own seed stream
    (:func:`fairshare.seeding.torch_seed`): a run's result then does not depend on the runs trained before it in the
    same process."""
    set_deterministic(torch_seed(root_seed, stream, *keys))


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
