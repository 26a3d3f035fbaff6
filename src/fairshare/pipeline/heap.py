"""Keep glibc's heap instead of trimming it after every large free, and serve MB-sized blocks from it.

A training step allocates and frees activation tensors of a few MB. With glibc's defaults the first free of such a
block raises the mmap threshold to its size, later blocks come from the heap, and every free at the heap's top trims
it (``brk``) once more than twice that threshold is free; the next step grows it again and faults every page back
in. Measured on a 1-conv CNN step at batch 64 (``bench/heap_trim.py``): up to a third of the CPU time in the kernel,
millions of minor page faults. A trim threshold of 1 GiB and a top pad of 256 MiB stop the churn.

Setting either of them also freezes glibc's mmap threshold where it stands: 128 KiB in a fresh ``fairshare`` process.
Blocks above it are then served from the heap only while its top has room; once long-lived blocks fill it (the
Aequa scale job holds 300 client models of 3.2 MB), every larger request gets a fresh ``mmap`` and its free a
``munmap``, and the pages fault in again: that job spent 57 % of its CPU time in the kernel (1,249 s system against
951 s user, 324 million minor faults). So the mmap threshold is set too, to glibc's largest (32 MiB on 64-bit):
blocks up to that size come from the heap, which grows when its top is full. No number changes (allocation does not
touch arithmetic); peak memory grows by the heap kept (``bench/heap_trim.py`` prints both).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

__all__ = ["MMAP_THRESHOLD", "TRIM_THRESHOLD", "TOP_PAD", "keep_heap"]

TRIM_THRESHOLD = 1 << 30  # bytes free at the heap's top before glibc returns them
TOP_PAD = 256 << 20  # bytes added to each heap growth
MMAP_THRESHOLD = 32 << 20  # blocks above this get their own mapping (glibc's maximum on 64-bit)
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3  # glibc's mallopt parameters (malloc.h)


def keep_heap(
    trim_threshold: int = TRIM_THRESHOLD, top_pad: int = TOP_PAD, mmap_threshold: int = MMAP_THRESHOLD
) -> bool:
    """Set glibc's trim threshold, top pad and mmap threshold for this process (``mallopt``); False where the C library
    is not glibc (macOS, musl) or refuses, and nothing changes there."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return all(
        bool(mallopt(parameter, value))
        for parameter, value in (
            (_M_MMAP_THRESHOLD, mmap_threshold),
            (_M_TRIM_THRESHOLD, trim_threshold),
            (_M_TOP_PAD, top_pad),
        )
    )
