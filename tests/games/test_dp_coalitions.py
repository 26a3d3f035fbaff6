"""Endogenous-privacy data sharing: closed-form windows against the literal definitions, and the paper's numbers."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import yaml
from scipy.optimize import minimize_scalar

from fairshare.games import dp_coalitions as dp
from fairshare.seeding import generator
from tests.conftest import REPO

REF = yaml.safe_load((REPO / "workflow" / "reference" / "dp_coalitions_printed.yaml").read_text())
FIG1 = REF["figure1"]
L4 = REF["lemma4"]


def _random_instance(rng):
    n = int(rng.integers(3, 6))
    return np.sort(rng.uniform(1e-4, 5e-3, size=n)), float(rng.uniform(-1, 1))


def _direct_stable_sets(c, alpha, sigma2, notion):
    return {
        s
        for k in range(2, len(c) + 1)
        for s in itertools.combinations(range(len(c)), k)
        if dp.is_stable_direct(c, alpha, sigma2, s, notion)
    }


# ------------------------------------------------------------------------------------ closed form vs definitions
@pytest.mark.parametrize("notion", dp.NOTIONS)
def test_closed_form_equals_definitions_on_random_profiles(notion):
    rng = generator(0, "game", 40, dp.NOTIONS.index(notion))
    for _ in range(8):
        c, alpha = _random_instance(rng)
        top = dp.leave_threshold(dp.phi(c), alpha) * 1.3
        for sigma2 in rng.uniform(0, top, size=5):
            assert set(dp.stable_coalitions(c, alpha, sigma2, notion)) == _direct_stable_sets(
                c, alpha, sigma2, notion
            ), (c, alpha, sigma2)


@pytest.mark.parametrize("notion", dp.NOTIONS)
def test_every_window_edge_matches_definitions_on_random_profiles(notion):
    """Just inside and just outside each coalition's [lo, hi) the definitions agree (relative 1e-9 in sigma2)."""
    rng = generator(0, "game", 41, dp.NOTIONS.index(notion))
    for _ in range(4):
        c, alpha = _random_instance(rng)
        for w in dp.stability_windows(c, alpha, notion):
            assert dp.is_stable_direct(c, alpha, w.lo * (1 + 1e-9), w.members, notion)
            assert not dp.is_stable_direct(c, alpha, w.lo * (1 - 1e-9), w.members, notion)
            if math.isfinite(w.hi):
                assert dp.is_stable_direct(c, alpha, w.hi * (1 - 1e-9), w.members, notion)
                assert not dp.is_stable_direct(c, alpha, w.hi * (1 + 1e-9), w.members, notion)


@pytest.mark.parametrize("notion", dp.NOTIONS)
def test_figure1_breakpoints_agree_with_definitions_to_1e9(notion):
    pieces = dp.max_equilibrium_size(FIG1["costs"], FIG1["alpha"], notion)
    for (lo, hi, size), nxt in zip(pieces, pieces[1:] + [None]):
        mid = (lo + hi) / 2 if math.isfinite(hi) else lo * 1.1
        assert dp.max_size_direct(FIG1["costs"], FIG1["alpha"], mid**2, notion) == size
        if nxt is not None:  # 1e-9 either side of every breakpoint, in sigma
            assert dp.max_size_direct(FIG1["costs"], FIG1["alpha"], (hi - 1e-9) ** 2, notion) == size
            assert dp.max_size_direct(FIG1["costs"], FIG1["alpha"], (hi + 1e-9) ** 2, notion) == nxt[2]


def test_numerical_best_response_is_lemma_2():
    rng = generator(0, "game", 42)
    for _ in range(20):
        c, k, alpha = float(rng.uniform(1e-4, 1e-1)), int(rng.integers(2, 50)), float(rng.uniform(-1, 1))
        assert dp.best_response_eps(c, k, alpha) == pytest.approx(float(dp.eps_decentralized(c, k, alpha)), rel=1e-13)


def test_selfish_eps_minimises_each_members_burden():
    c, alpha, sigma2 = np.array([1e-3, 2e-3, 4e-3]), 0.3, 0.2
    eps = dp.eps_decentralized(c, 3, alpha)
    for i in range(3):

        def own(log_e):
            trial = eps.copy()
            trial[i] = math.exp(log_e)
            return dp.burdens(c, trial, sigma2, alpha)[i]

        res = minimize_scalar(own, bounds=(-10, 10), method="bounded", options={"xatol": 1e-10})
        assert math.exp(res.x) == pytest.approx(eps[i], rel=1e-6)


# ----------------------------------------------------------------------------------------------- the public API
@pytest.mark.parametrize("notion", dp.NOTIONS)
def test_max_equilibrium_size_contract(notion):
    rng = generator(0, "game", 43)
    for _ in range(5):
        c, alpha = _random_instance(rng)
        pieces = dp.max_equilibrium_size(c, alpha, notion)
        assert pieces[0][0] == 0 and pieces[-1][1] == math.inf
        assert all(a[1] == b[0] and a[2] != b[2] for a, b in zip(pieces, pieces[1:]))  # contiguous, no redundant cuts
        assert all(lo < hi and s in {0, *range(2, len(c) + 1)} for lo, hi, s in pieces)
        assert dp.max_equilibrium_size(c[::-1], alpha, notion) == pieces  # order of the profile does not matter


def test_robust_size_monotone_and_linear_time_size_on_random_profiles():
    """Lemma 6 and Claim 8 on random instances; the robust maximum dominates the Nash one (Claim 1)."""
    rng = generator(0, "game", 44)
    for _ in range(15):
        c, alpha = _random_instance(rng)
        robust = dp.max_equilibrium_size(c, alpha, "robust")
        sizes = [s for _, _, s in robust]
        assert sizes == sorted(sizes)
        for lo, hi, size in robust:
            s = (lo + hi) / 2 if math.isfinite(hi) else 2 * lo
            assert dp.max_robust_size_linear(c, alpha, s * s) == size
        for lo, hi, size in dp.max_equilibrium_size(c, alpha, "nash"):
            s = (lo + hi) / 2 if math.isfinite(hi) else 2 * lo
            assert dp.max_robust_size_linear(c, alpha, s * s) >= size


def test_robust_windows_meet_exactly():
    """U_R(S) is computed by the same T as the bigger coalition, so the Lemma 6 chain has no gaps or overlaps."""
    windows = {w.members: w for w in dp.stability_windows(FIG1["costs"], FIG1["alpha"], "robust")}
    chain = [windows[m] for m in (tuple(range(k)) for k in range(2, 10)) if m in windows]
    assert len(chain) == 8
    assert all(a.hi == b.lo for a, b in zip(chain, chain[1:]))


# ---------------------------------------------------------------------------------------- the paper's statements
def test_figure1_qualitative_statements():
    nash = dp.max_equilibrium_size(FIG1["costs"], FIG1["alpha"], "nash")
    robust = dp.max_equilibrium_size(FIG1["costs"], FIG1["alpha"], "robust")
    exists = [size > 0 for _, _, size in nash]
    assert any(a and not b for a, b in zip(exists, exists[1:]))  # Nash existence is lost as sigma grows
    assert exists[-1] and nash[-1][2] == 9
    sizes = [size for _, _, size in robust]
    assert sizes == sorted(sizes) and sizes[0] == 0 and sizes[-1] == 9  # robust: monotone existence and maximum size
    assert sum(1 for s in sizes if s == 0) == 1
    assert sum(1 for _, _, s in nash if s == 0) == 6  # spec §5: six shaded Nash regions


def test_lemma_4_printed_numbers_to_the_printed_digits():
    c = dp.sorted_costs(L4["costs"])
    alpha, sigma2 = L4["alpha"], L4["sigma2"]
    for u in L4["coalitions"]:
        idx = [m - 1 for m in u["members"]]
        eps = dp.eps_decentralized(c[idx], len(idx), alpha)
        assert [f"{e:.4f}" for e in eps] == u["eps"]
        assert f"{dp.variance(sigma2, eps):.4f}" == u["variance"]
        assert [f"{b:.4f}" for b in dp.burdens(c[idx], eps, sigma2, alpha)] == u["burden_members"]
        outsiders = [j for j in range(len(c)) if j not in idx]
        assert [f"{dp.entrant_burden(c[idx], c[j], sigma2, alpha):.4f}" for j in outsiders] == u[
            "burden_outsiders_joining"
        ]


def test_lemmas_3_and_4_equilibria():
    c = dp.sorted_costs(L4["costs"])
    # Lemma 3: two equilibria at once; Lemma 4: player 4 out while the costlier player 5 is in
    for notion in dp.NOTIONS:
        assert sorted(dp.stable_coalitions(c, L4["alpha"], L4["sigma2"], notion)) == [(0, 1, 2, 3), (0, 1, 2, 4)]
    assert c[3] <= c[4]


def test_lemma_5_nash_existence_non_monotone():
    l5 = REF["lemma5"]
    assert dp.stable_coalitions(l5["costs"], l5["alpha"], l5["nash_exists_at_sigma"] ** 2, "nash")
    assert dp.stable_coalitions(l5["costs"], l5["alpha"], l5["no_nash_at_sigma"] ** 2, "nash") == []
    assert dp.max_size_direct(l5["costs"], l5["alpha"], l5["no_nash_at_sigma"] ** 2, "nash") == 0


def test_laplace_estimator_variance_is_equation_1():
    rng = generator(0, "sampling", 45)
    eps = np.array([0.8, 1.5, 3.0, 6.0])
    x = rng.uniform(0, 1, size=(200_000, 4))  # variance 1/12
    centred = dp.laplace_mean(x, eps, rng) - 0.5
    sample_var = np.mean(centred**2)  # the true mean 1/2 is known
    se = np.sqrt((np.mean(centred**4) - sample_var**2) / len(centred))
    assert abs(sample_var - dp.variance(1 / 12, eps)) < 4 * se
    assert abs(sample_var - dp.variance(1 / 12, 2 * eps)) > 4 * se  # the check can tell a wrong noise scale apart


def test_centralized_closed_forms_match_definition_6():
    c, alpha, sigma2 = dp.sorted_costs([3e-3, 1e-3, 2e-3, 5e-3]), -0.3, 0.05
    for k in range(2, 5):
        eps = dp.eps_centralized(c[:k], k, alpha)
        assert dp.social_cost(c[:k], eps, 4, sigma2, alpha) == pytest.approx(
            dp.social_cost_centralized(c, k, sigma2, alpha), rel=1e-13
        )
        assert dp.variance(sigma2, eps) == pytest.approx(dp.variance_centralized(c, k, sigma2, alpha), rel=1e-13)
        for factor in (0.97, 1.03):  # the designer's eps is a (local) optimum of Def 6
            assert dp.social_cost(c[:k], eps * factor, 4, sigma2, alpha) > dp.social_cost(c[:k], eps, 4, sigma2, alpha)
        eps_d = dp.eps_decentralized(c[:k], k, alpha)
        assert dp.social_cost(c[:k], eps_d, 4, sigma2, alpha) == pytest.approx(
            dp.social_cost_decentralized(c[:k], 4, sigma2, alpha), rel=1e-13
        )
        assert dp.variance(sigma2, eps_d) == pytest.approx(dp.variance_decentralized(c[:k], sigma2, alpha), rel=1e-13)


def test_identical_cost_shortcut_agrees_with_enumeration():
    for alpha in (-0.7, 0.0, 0.8):
        for sigma2 in (0.05, 0.25):
            for notion in dp.NOTIONS:
                assert np.allclose(
                    dp.identical_cost_pos(6, 0.02, sigma2, alpha, notion),
                    dp.price_of_stability([0.02] * 6, sigma2, alpha, notion),
                )


def test_theorem_3_bound_on_random_instances():
    rng = generator(0, "game", 46)
    for _ in range(40):
        c, sigma2, alpha = (
            np.sort(rng.uniform(1e-4, 5e-2, size=5)),
            float(rng.uniform(0.005, 0.5)),
            float(rng.uniform(0.51, 1)),
        )
        for notion in dp.NOTIONS:
            pos_sc, _ = dp.price_of_stability(c, sigma2, alpha, notion)
            assert 1 - 1e-12 <= pos_sc < max(4 / 3, 2 ** (1 / 3) * sigma2 / (3 * c[0] ** (2 / 3)))


def test_price_of_stability_is_at_least_one():
    """The designer's optimum is over every coalition and eps, so no stable coalition has a lower social cost."""
    rng = generator(0, "game", 47)
    for _ in range(40):
        c, sigma2, alpha = (
            np.sort(rng.uniform(1e-4, 5e-2, size=5)),
            float(rng.uniform(0.005, 0.5)),
            float(rng.uniform(-1, 1)),
        )
        for notion in dp.NOTIONS:
            assert dp.price_of_stability(c, sigma2, alpha, notion)[0] >= 1 - 1e-12


def test_nash_and_robust_windows_share_their_lower_end():
    """Both notions need T(S) <= sigma2 (no member leaves), computed once: the windows start at the same point."""
    c = dp.sorted_costs(L4["costs"])
    for members in ((0, 1, 2, 3), (0, 1, 2, 4), (1, 2), (0, 5)):
        nash, robust = (dp.stability_interval(c, members, 1.0, notion) for notion in dp.NOTIONS)
        assert nash[0] == robust[0] and nash[1] <= robust[1]


@pytest.mark.parametrize(
    "costs, alpha, notion, match",
    [
        ([1e-3], 1, "nash", "at least two"),
        ([1e-3, -1], 1, "nash", "positive"),
        ([1e-3, 2e-3], 2, "nash", "alpha"),
        ([1e-3, 2e-3], 1, "core", "notion"),
    ],
)
def test_bad_input(costs, alpha, notion, match):
    with pytest.raises(ValueError, match=match):
        dp.max_equilibrium_size(costs, alpha, notion)
