"""Which device runs a job and whether it computes bfloat16 natively: bf16 where it is emulated trains several times
slower than fp32 (docs/engine.md), and a job asked for it there says so in its log."""

from __future__ import annotations

import pytest
import torch

from fairshare.learning.device import bf16_warning, native_bf16, resolve_device


def test_auto_is_cpu_without_a_gpu_and_cuda_without_one_is_refused():
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    assert resolve_device("auto").type == "cpu"
    with pytest.raises(RuntimeError, match="no CUDA device"):
        resolve_device("cuda")


def test_native_bf16_follows_the_cpu_instructions():
    cpu = torch.device("cpu")
    flags = [
        getattr(torch.cpu, name, lambda: False)() for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    ]
    assert native_bf16(cpu) is any(flags)
    if torch.backends.cpu.get_cpu_capability() in ("AVX2", "DEFAULT"):  # no AVX-512 at all: no AVX-512 BF16 either
        assert not native_bf16(cpu)


def test_emulated_bf16_is_named_in_one_line_and_fp32_never():
    cpu = torch.device("cpu")
    assert bf16_warning("fp32", cpu, "mmfl.precision") is None
    line = bf16_warning("bf16", cpu, "mmfl.precision")
    if native_bf16(cpu):
        assert line is None
    else:
        assert "mmfl.precision" in line and "fp32" in line and "\n" not in line
