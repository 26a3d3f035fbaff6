"""The participation-rate experiment's pieces: Bernoulli schedules follow the rates; rates map onto a(p)'s range."""

from __future__ import annotations

import numpy as np

from fairshare.papers.aequa_extensions.experiment import participants_schedule, participation_rates, rates_as_accuracies


def test_participation_schedule_and_rate_mapping():
    rates = participation_rates(5, 0.2, 1.0)
    assert np.allclose(rates, [0.2, 0.4, 0.6, 0.8, 1.0])
    joins = participants_schedule(rates, lambda r: np.random.default_rng(r))
    counts = np.bincount(np.concatenate([joins(r) for r in range(400)]), minlength=5) / 400
    assert np.all(np.abs(counts - rates) < 0.08) and counts[-1] == 1.0
    mapped = rates_as_accuracies(rates, np.array([0.3, 0.6, 0.9]))
    assert np.isclose(mapped.min(), 0.3) and np.isclose(mapped.max(), 0.9) and np.all(np.diff(mapped) > 0)
