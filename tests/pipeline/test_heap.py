"""glibc heap settings of every `fairshare` process (`fairshare.pipeline.heap`): set where glibc is, the same trained
weights with and without them, and fewer page faults in bench/heap_trim.py's two loops (shortened)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from fairshare.pipeline.heap import keep_heap

REPO = Path(__file__).resolve().parents[2]
glibc = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mallopt is glibc's")


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_heap_trim", REPO / "bench" / "heap_trim.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@glibc
def test_keep_heap_takes_effect_on_glibc():
    assert keep_heap() is True


@glibc
@pytest.mark.parametrize("pattern", ["step", "held"])
def test_kept_heap_trains_the_same_weights_with_fewer_page_faults(bench, pattern):
    """``held``: with 480 MB of client states alive, the trim threshold alone (the mmap threshold frozen at 128 KiB)
    faults more than glibc's defaults; the mmap threshold of ``keep_heap`` faults far less than either."""
    default, kept = bench.run("default", 200, pattern), bench.run("kept", 200, pattern)
    assert kept["kept"] is True and default["kept"] is False
    assert kept["weights"] == default["weights"]
    assert kept["faults"] < default["faults"] / 4
    if pattern == "held":
        assert bench.run("trim_only", 200, pattern)["faults"] > default["faults"]
