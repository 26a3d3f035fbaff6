"""How one Aequa job orders its runs: seed by seed, each seed's standalone run (the contributions) first."""

from __future__ import annotations

import pytest

from fairshare.config import ConfigError
from fairshare.papers.aequa.experiment import Run, job_order


def _runs(*pairs: tuple[int, str]) -> list[Run]:
    return [Run(s, m, f"{m}{s}.json", f"{m}{s}.pt") for s, m in pairs]


def test_each_seed_starts_with_its_standalone_run():
    runs = _runs((0, "aequa"), (1, "cgsv"), (0, "standalone"), (1, "standalone"), (0, "iafl"))
    order = [(r.seed, r.method) for r in job_order(runs)]
    assert order == [(0, "standalone"), (0, "aequa"), (0, "iafl"), (1, "standalone"), (1, "cgsv")]


def test_a_seed_without_its_standalone_run_is_refused():
    with pytest.raises(ConfigError, match="seed 1: cgsv needs the seed's standalone run"):
        job_order(_runs((0, "standalone"), (0, "aequa"), (1, "cgsv")))
