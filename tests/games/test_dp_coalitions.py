"""Endogenous-privacy data sharing: closed-form windows against the literal definitions, and the paper's numbers."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import yaml

from fairshare.games import dp_coalitions as dp
from tests.conftest import REPO

REF = yaml.safe_load((REPO / "workflow" / "reference" / "dp_coalitions_printed.yaml").read_text())
FIG1 = REF["figure1"]


def _random_instance(rng):
    n = int(rng.integers(3, 6))
    return np.sort(rng.uniform(1e-4, 5e-3, size=n)), float(rng.uniform(-1, 1))


@pytest.mark.parametrize("notion", dp.NOTIONS)
def test_closed_form_equals_definitions_on_random_profiles(notion):
    rng = np.random.default_rng(17 if notion == "nash" else 18)
    for _ in range(8):
        c, alpha = _random_instance(rng)
        top = dp.leave_threshold(dp.phi(c), alpha) * 1.3
        for sigma2 in rng.uniform(0, top, size=5):
            closed = set(dp.stable_coalitions(c, alpha, sigma2, notion))
            direct = {s for k in range(2, len(c) + 1) for s in itertools.combinations(range(len(c)), k)
                      if dp.is_stable_direct(c, alpha, sigma2, s, notion)}
            assert closed == direct, (c, alpha, sigma2)


@pytest.mark.parametrize("notion", dp.NOTIONS)
def test_figure1_breakpoints_agree_with_definitions_to_1e9(notion):
    pieces = dp.max_equilibrium_size(FIG1["costs"], FIG1["alpha"], notion)
    assert pieces[0][0] == 0 and pieces[-1][1] == math.inf
    assert all(a[1] == b[0] for a, b in zip(pieces, pieces[1:]))  # contiguous cover of [0, inf)
    for (lo, hi, size), nxt in zip(pieces, pieces[1:] + [None]):
        mid = (lo + hi) / 2 if math.isfinite(hi) else lo * 1.1
        assert dp.max_size_direct(FIG1["costs"], FIG1["alpha"], mid**2, notion) == size
        if nxt is not None:  # just left and just right of each breakpoint, 1e-9 apart in sigma
            assert dp.max_size_direct(FIG1["costs"], FIG1["alpha"], (hi - 1e-9) ** 2, notion) == size
            assert dp.max_size_direct(FIG1["costs"], FIG1["alpha"], (hi + 1e-9) ** 2, notion) == nxt[2]


def test_figure1_qualitative_statements():
    nash = dp.max_equilibrium_size(FIG1["costs"], FIG1["alpha"], "nash")
    robust = dp.max_equilibrium_size(FIG1["costs"], FIG1["alpha"], "robust")
    nash_exists = [size > 0 for _, _, size in nash]
    assert any(a and not b for a, b in zip(nash_exists, nash_exists[1:]))  # Nash existence is lost as sigma grows
    sizes = [size for _, _, size in robust]
    assert sizes == sorted(sizes) and sizes[-1] == 9  # robust: monotone existence and maximum size
    assert sum(1 for _, _, s in nash if s == 0) == 6 and robust[0][2] == 0 and robust[1][2] > 0


def test_lemma_4_printed_numbers():
    l4 = REF["lemma4"]
    c = np.sort(l4["costs"])
    for u in l4["coalitions"]:
        idx = [m - 1 for m in u["members"]]
        eps = dp.eps_decentralized(c[idx], len(idx), l4["alpha"])
        assert np.allclose(eps, np.array(u["eps"], float), atol=5e-5)
        assert abs(dp.variance(l4["sigma2"], eps) - float(u["variance"])) < 5e-5
        assert np.allclose(dp.burdens(c[idx], eps, l4["sigma2"], l4["alpha"]), np.array(u["burden_members"], float), atol=5e-5)
    assert sorted(dp.stable_coalitions(c, l4["alpha"], l4["sigma2"], "nash")) == [(0, 1, 2, 3), (0, 1, 2, 4)]  # Lemma 3: two equilibria


def test_lemma_5_nash_existence_non_monotone():
    l5 = REF["lemma5"]
    assert dp.stable_coalitions(l5["costs"], l5["alpha"], 0.25**2, "nash") == [(0, 1, 2, 3)]
    assert dp.stable_coalitions(l5["costs"], l5["alpha"], 0.4**2, "nash") == []


def test_lemma_2_selfish_eps_is_a_best_response():
    c, alpha, sigma2 = np.array([1e-3, 2e-3, 4e-3]), 0.3, 0.2
    eps = dp.eps_decentralized(c, 3, alpha)
    for i in range(3):
        for factor in (0.9, 1.1):
            dev = eps.copy()
            dev[i] *= factor
            assert dp.burdens(c, dev, sigma2, alpha)[i] > dp.burdens(c, eps, sigma2, alpha)[i]


def test_centralized_and_identical_cost_pos_agree_with_enumeration():
    for alpha in (-0.7, 0.0, 0.8):
        c = [0.02] * 6
        for notion in dp.NOTIONS:
            assert np.allclose(dp.identical_cost_pos(6, 0.02, 0.25, alpha, notion), dp.price_of_stability(c, 0.25, alpha, notion))


@pytest.mark.parametrize("costs, alpha, match", [([1e-3], 1, "at least two"), ([1e-3, -1], 1, "positive"), ([1e-3, 2e-3], 2, "alpha")])
def test_bad_input(costs, alpha, match):
    with pytest.raises(ValueError, match=match):
        dp.max_equilibrium_size(costs, alpha, "nash")
