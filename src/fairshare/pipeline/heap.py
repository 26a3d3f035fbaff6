"""Keep glibc's heap instead of trimming it after every large free.

A training step allocates and frees activation tensors of a few MB. With glibc's defaults the first free of such a
block raises the mmap threshold to its size, later blocks come from the heap, and every free at the heap's top trims
it (``brk``) once more than twice that threshold is free; the next step grows it again and faults every page back
in. Measured on a 1-conv CNN step at batch 64 (``bench/heap_trim.py``): up to a third of the CPU time in the kernel,
millions of minor page faults. A trim threshold of 1 GiB and a top pad of 256 MiB stop the churn; peak memory is
unchanged (the heap is kept, not grown) and no number changes (allocation does not touch arithmetic).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

__all__ = ["TRIM_THRESHOLD", "TOP_PAD", "keep_heap"]

TRIM_THRESHOLD = 1 << 30  # bytes free at the heap's top before glibc returns them
TOP_PAD = 256 << 20  # bytes added to each heap growth
_M_TRIM_THRESHOLD, _M_TOP_PAD = -1, -2  # glibc's mallopt parameters (malloc.h)


def keep_heap(trim_threshold: int = TRIM_THRESHOLD, top_pad: int = TOP_PAD) -> bool:
    """Set glibc's trim threshold and top pad for this process (``mallopt``); False where the C library is not glibc
    (macOS, musl) or refuses, and nothing changes there."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_TRIM_THRESHOLD, trim_threshold)) and bool(mallopt(_M_TOP_PAD, top_pad))
