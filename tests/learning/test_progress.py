"""Progress in a log file is plain lines (issue 27): label, round, headline metric, samples/s; never a '\r' redraw.
A job of several runs names each run's place (issue 39); a costly headline is computed only for the lines it shows."""

from __future__ import annotations

import io
import re

import pytest

from fairshare.learning.progress import Progress, numbered, progress_iter
from fairshare.learning.rounds import headline, run_rounds


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _step(r: int, state: int) -> tuple[int, list[dict], int]:
    """Two tasks per round, as in multi-model FL: the headline is the lower accuracy."""
    return state + 1, [{"task": 0, "accuracy": 0.5 + r / 100}, {"task": 1, "accuracy": 0.25 + r / 100}], 32


def test_run_rounds_writes_lines_to_a_non_terminal():
    stream = io.StringIO()
    label = "mmfl exp1 fedfair seed=0"
    state, rows = run_rounds(_step, 0, 5, settings="", desc=label, stream=stream)
    text = stream.getvalue()
    assert state == 5 and len(rows) == 10
    assert "\r" not in text and text.endswith("\n")
    assert all(re.fullmatch(r"\d\d:\d\d:\d\d .*", line) for line in text.splitlines())  # the time of day first
    lines = [line[9:] for line in text.splitlines()]
    assert lines[0].startswith(f"{label}: round 1/5, min accuracy 0.2500, ")
    assert lines[-1].startswith(f"{label}: round 5/5, min accuracy 0.2900, ")
    assert all(line.startswith(f"{label}: round ") and line.endswith(" samples/s") for line in lines)


def test_lines_at_most_every_interval_and_the_last():
    stream, now = io.StringIO(), [0.0]
    shown = Progress(10, "run", stream=stream, interval=10.0, clock=lambda: now[0])
    for _ in range(10):
        now[0] += 3.0
        shown.update(30)
    rounds = [line.split(": round ")[1].split(",")[0] for line in stream.getvalue().splitlines()]
    assert rounds == ["1/10", "5/10", "9/10", "10/10"]
    assert "10 samples/s" in stream.getvalue()


def test_no_output_when_disabled_and_a_bar_on_a_terminal():
    quiet = io.StringIO()
    run_rounds(_step, 0, 3, settings="", stream=quiet, progress=False)
    assert quiet.getvalue() == ""
    tty = Tty()
    run_rounds(_step, 0, 3, settings="", desc="bar", stream=tty)
    assert "\r" in tty.getvalue() and "bar" in tty.getvalue()


def test_progress_iter_lines_and_headlines():
    stream = io.StringIO()
    assert list(progress_iter(range(3), 3, "auctions exp5", unit="seed", stream=stream)) == [0, 1, 2]
    assert stream.getvalue().splitlines()[-1][9:] == "auctions exp5: seed 3/3"
    assert headline({"train_loss": 0.123456}) == "train_loss 0.1235"
    assert headline([{"accuracy": 0.75}]) == "accuracy 0.7500"
    assert headline([{"accuracy": None, "pearson": 0.1}]) == ""


def test_numbered_names_the_run_of_a_job_of_several():
    assert (
        numbered("aequa main digits/dir0.5 cgsv seed=0", 12, 75)
        == "aequa main digits/dir0.5 cgsv seed=0 (run 12 of 75)"
    )
    assert numbered("mmfl exp1 fedfair seed=0", 1, 1) == "mmfl exp1 fedfair seed=0"
    with pytest.raises(ValueError, match="1..3"):
        numbered("x", 4, 3)


def test_a_headline_function_is_called_only_for_the_lines_it_shows():
    stream, now, calls = io.StringIO(), [0.0], []

    def probe() -> str:
        calls.append(now[0])
        return f"accuracy 0.{len(calls)}"

    shown = Progress(10, "run", stream=stream, interval=10.0, clock=lambda: now[0])
    for _ in range(10):
        now[0] += 3.0
        shown.update(30, probe)
    lines = [line[9:] for line in stream.getvalue().splitlines()]
    assert calls == [3.0, 15.0, 27.0, 30.0]  # the rounds 1, 5, 9 and 10 that print a line
    assert lines[0].startswith("run: round 1/10, accuracy 0.1, ") and lines[-1].startswith(
        "run: round 10/10, accuracy 0.4"
    )
    tty, calls[:] = Tty(), []
    bar = Progress(10, "bar", stream=tty, interval=10.0, clock=lambda: now[0])
    for _ in range(10):
        now[0] += 3.0
        bar.update(30, probe)
    assert len(calls) == 4 and bar.bar.postfix.startswith("accuracy 0.4")  # a bar calls it as rarely
    bar.close()


def test_run_rounds_probes_the_state_only_where_the_metrics_give_no_headline():
    stream, probed = io.StringIO(), []

    def silent(r: int, state: int) -> tuple[int, dict, int]:
        return state + 1, {}, 8

    def probe(state: int) -> str:
        probed.append(state)
        return f"accuracy {state / 10:.4f}"

    state, _ = run_rounds(silent, 0, 4, settings="", desc="aequa (run 2 of 3)", probe=probe, stream=stream)
    lines = [line[9:] for line in stream.getvalue().splitlines()]
    assert state == 4 and probed == [1, 4]  # the first and the last round's lines; the state after that round
    assert lines[0].startswith("aequa (run 2 of 3): round 1/4, accuracy 0.1000, ")
    assert lines[-1].startswith("aequa (run 2 of 3): round 4/4, accuracy 0.4000, ")
    probed.clear()
    run_rounds(_step, 0, 3, settings="", probe=probe, stream=io.StringIO())
    run_rounds(silent, 0, 3, settings="", probe=probe, stream=io.StringIO(), progress=False)
    assert probed == []  # the step's own metric wins; nothing is probed when progress is off
