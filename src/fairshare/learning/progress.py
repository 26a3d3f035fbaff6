"""Training progress for people: a tqdm bar on a terminal, plain lines in a log file.

A pipeline job's stderr goes to ``logs/<paper>/*.log``; tqdm's carriage-return redraws there made one endless line
that ``tail -f`` cannot show (issue 27). So when the stream is not a terminal, progress is one newline-terminated
line for the first update, then at most every ``interval`` seconds, and for the last one, e.g.
``14:02:11 mmfl exp1 fedfair seed=0 (run 3 of 12): round 7/15, min accuracy 0.4310, 1234 samples/s``. A job that
trains several runs names each run's place in the job (:func:`numbered`). A headline may be a function, called only
when a line (or a bar's refresh) shows it, so a metric that costs an evaluation is computed every ``interval`` seconds
rather than every round. Progress only prints: it never touches a result, a random generator or a checkpoint.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TextIO, TypeVar

from tqdm import tqdm

__all__ = ["LINE_INTERVAL_S", "Headline", "Progress", "numbered", "progress_iter"]

LINE_INTERVAL_S = 10.0
T = TypeVar("T")
Headline = str | Callable[[], str]  # the text to show, or a function computing it when it is shown


def numbered(label: str, run: int, runs: int) -> str:
    """``label`` with the run's place among the ``runs`` runs of its job (``run`` counts from 1), e.g.
    ``"aequa main digits/dir0.5 cgsv seed=0 (run 12 of 75)"``; ``label`` unchanged for a job of one run."""
    if not 1 <= run <= runs:
        raise ValueError(f"run must be in 1..{runs}, got {run}")
    return label if runs == 1 else f"{label} (run {run} of {runs})"


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Progress:
    """Progress of ``total`` steps (rounds, seeds, ...) named by ``label``, from ``start`` steps already done.

    On a terminal a tqdm bar (as before); elsewhere one line per :data:`LINE_INTERVAL_S` seconds and the last step,
    each starting with the local time of day (``wall``: the clock it is read from). ``enabled=False`` shows nothing.
    """

    def __init__(
        self,
        total: int,
        label: str,
        *,
        start: int = 0,
        unit: str = "round",
        enabled: bool = True,
        stream: TextIO | None = None,
        interval: float = LINE_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.total, self.label, self.unit, self.enabled = total, label, unit, enabled
        self.stream = sys.stderr if stream is None else stream
        self.interval, self.clock, self.wall = interval, clock, wall
        self.done = min(start, total)
        self.bar = self._bar() if enabled and _is_terminal(self.stream) else None
        self.last_line: float | None = None
        self.since, self.samples = clock(), 0
        self.headline = ""

    def _bar(self) -> tqdm:
        return tqdm(total=self.total, initial=self.done, desc=self.label, unit=self.unit, leave=False, file=self.stream)

    def update(self, samples: int | None = None, headline: Headline = "") -> None:
        """One more step done; ``samples`` trained in it (for samples/s) and ``headline`` (e.g. a metric) to show: a
        function is called only when its text is shown (a line, or a bar's refresh every ``interval`` seconds)."""
        self.done += 1
        if not self.enabled:
            return
        self.samples += samples or 0
        now = self.clock()
        rate = f"{self.samples / max(now - self.since, 1e-9):.0f} samples/s" if samples is not None else ""
        due = self._due(now)
        if due or not callable(headline):
            self.headline = headline() if callable(headline) else headline
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix_str(", ".join(s for s in (self.headline, rate) if s), refresh=False)
            self.since, self.samples = now, 0
            if due:
                self.last_line = now
        elif due:
            self._line(self.headline, rate)
            self.last_line, self.since, self.samples = now, now, 0

    def _due(self, now: float) -> bool:
        """The first update, one ``interval`` after the last line, and the last step."""
        return self.last_line is None or now - self.last_line >= self.interval or self.done >= self.total

    def _line(self, headline: str, rate: str) -> None:
        parts = [f"{self.unit} {self.done}/{self.total}", headline, rate]
        stamp = time.strftime("%H:%M:%S", time.localtime(self.wall()))
        print(f"{stamp} {self.label}: {', '.join(p for p in parts if p)}", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def progress_iter(
    items: Iterable[T], total: int, label: str, *, unit: str, enabled: bool = True, stream: TextIO | None = None
) -> Iterator[T]:
    """``items`` with :class:`Progress` after each one (a bar on a terminal, lines in a log)."""
    progress = Progress(total, label, unit=unit, enabled=enabled, stream=stream)
    try:
        for item in items:
            yield item
            progress.update()
    finally:
        progress.close()
