"""`./run calibrate` (bench/calibrate.py): the figure is the median of real timed rounds of engine_throughput's
20-client round, the time box stops the rounds, and the factor printed is 2,000 / figure (docs/budgets.md)."""

from __future__ import annotations

import importlib.util
import re
import statistics
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def calibrate():
    sys.path.insert(0, str(REPO / "bench"))  # the script imports engine_throughput as its sibling, as when run
    try:
        spec = importlib.util.spec_from_file_location("bench_calibrate", REPO / "bench" / "calibrate.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(REPO / "bench"))


def test_a_spent_time_box_stops_after_one_round_below_the_minimum(calibrate):
    """A busy machine stops at fewer rounds than asked rather than running on (at twice the time box)."""
    rates, samples = calibrate.measure(threads=1, seconds=0.0, min_repeats=5, max_repeats=10)
    assert len(rates) == 1 and rates[0] > 0
    assert 20 * 150 <= samples <= 20 * 250  # 20 clients of 150-250 samples, one epoch


def test_the_figure_is_the_median_and_the_factor_scales_the_reference(calibrate, monkeypatch, capsys):
    rates = [1000.0, 4000.0, 800.0, 1100.0, 900.0]  # one round at 4,000 does not move a median
    monkeypatch.setattr(calibrate, "measure", lambda *args: (rates, 4000))
    calibrate.main(["--seconds", "1"])
    last = capsys.readouterr().out.splitlines()[-1]
    figure, factor = re.fullmatch(r"this machine: ([\d,]+) client-samples/s; .* = ([\d.]+)x", last).groups()
    assert int(figure.replace(",", "")) == statistics.median(rates) == 1000
    assert float(factor) == 2.0
