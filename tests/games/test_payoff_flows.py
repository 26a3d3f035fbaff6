"""Payoffs, payoff flows and budgets: hand-derived games, and the axioms and lemmas of Sections 3-4 (spec §5, T1-T22)
checked numerically on random monotone games and on the authors' stored MNIST table.

Identities that hold by construction of ``allocate`` (balance, when payoffs are column minus row sums of one matrix;
v(N) for everyone when lambda = 1; v(i) <= model <= v(N), which clipping lambda to [0, 1] ensures; Remark 3.6's
formula against itself) are not checked: they cannot fail.
"""

from __future__ import annotations

import itertools
import json
import warnings
from math import factorial

import numpy as np
import pytest

from fairshare.games import payoff_flows as pf
from fairshare.games.shapley import conditional_shapley, n_players, shapley_values
from tests.conftest import REPO

pytestmark = pytest.mark.filterwarnings("ignore::fairshare.games.payoff_flows.NonMonotoneGameWarning")

FIXTURE = json.loads((REPO / "workflow" / "reference" / "payoff_mnist_5parties_v.json").read_text())
REFERENCE = np.array(FIXTURE["v"])
# conventions.md "Lessons" item 1: v({0}) = v({1}) = 1, v({0,1}) = 2, every other non-empty coalition 3
THREE = np.array([0.0, 1.0, 1.0, 2.0, 3.0, 3.0, 3.0, 3.0])
TOL = 1e-9
#: Checks that compare lambda with the LP's optimum hold to the solver's accuracy; their residuals are scaled by
#: TOL / LP_TOL so that every residual is held to TOL.
LP_TOL = 1e-7


def test_fixture_has_provenance_and_the_paper_layout():
    assert len(REFERENCE) == 32 and REFERENCE[0] == 0
    assert FIXTURE["parties"] == ["[0]", "[1-2]", "[0-3]", "[3-5]", "[6-9]"]
    assert "model-payoff-allocation" in FIXTURE["provenance"]
    assert (REPO / "workflow" / "reference" / "payoff_mnist_5parties_v.md").is_file()


def test_fixture_equals_the_shared_reference_data():
    shared = REPO.parent / "shared" / "data" / "payoff_mnist_5parties_v.json"
    if not shared.is_file():
        pytest.skip("the project's shared reference data is not mounted here")
    assert FIXTURE["v"] == json.loads(shared.read_text())["v"]


def test_three_player_example_by_hand():
    a = pf.allocate(THREE)
    np.testing.assert_allclose(a.shapley, [0.5, 0.5, 2.0])
    np.testing.assert_allclose(a.payoff, [-1.5, -1.5, 3.0])  # n phi - v(N)
    np.testing.assert_allclose(a.flows, [[0, 0.5, 1.5], [0.5, 0, 1.5], [0, 0, 0]])
    np.testing.assert_allclose(a.cost, [2.0, 2.0, 0.0])  # v(N) - v(i)
    np.testing.assert_allclose(a.model_value, 3.0)
    # zero budgets: 2 l0 <= 0.5 l1 and 2 l1 <= 0.5 l0 force l0 = l1 = 0; party 2 has no cost (lambda 1 by convention)
    zero = pf.allocate(THREE, [0, 0, 0])
    np.testing.assert_allclose(zero.lam, [0, 0, 1], atol=1e-9)
    np.testing.assert_allclose(zero.model_value, [1, 1, 3], atol=1e-9)
    # b0 = 1: l1 = l0 / 4 and 2 l0 - l1 / 2 = 1 give l0 = 8/15, l1 = 2/15
    one = pf.allocate(THREE, [1, 0, 0])
    np.testing.assert_allclose(one.lam, [8 / 15, 2 / 15, 1], atol=1e-9)
    np.testing.assert_allclose(one.payoff, [-1, 0, 1], atol=1e-9)
    np.testing.assert_allclose(one.model_value, [1 + 16 / 15, 1 + 4 / 15, 3], atol=1e-9)


def test_unlimited_budgets_give_everyone_the_grand_model():
    # b = inf (Fig. 2b): lambda = 1 for every party, whether budgets are None, inf or huge and finite (T21)
    for budgets in (None, [np.inf] * 5, [1e9] * 5):
        a = pf.allocate(REFERENCE, budgets)
        np.testing.assert_allclose(a.lam, 1.0, atol=1e-9)
        np.testing.assert_allclose(a.model_value, REFERENCE[-1], atol=1e-9)


def test_public_api_shapes_and_identities():
    a = pf.allocate(REFERENCE, [0.3, 0, 0, 0, 0])
    for field in ("shapley", "payoff", "lam", "model_value"):
        assert getattr(a, field).shape == (5,)
    assert a.flows.shape == (5, 5) and np.all(np.diag(a.flows) == 0)
    np.testing.assert_allclose(a.payoff, a.revenue - a.cost)  # row i pays column j
    np.testing.assert_allclose(pf.payoff_vector(REFERENCE), 5 * shapley_values(REFERENCE) - REFERENCE[-1])
    np.testing.assert_allclose(pf.payoff_flow_matrix(REFERENCE), conditional_shapley(REFERENCE))


# ---- the paper's axioms and lemmas, on any game ----


def _extend(v: np.ndarray, new_value) -> np.ndarray:
    """A game with one more player n: v(S) for S without n, ``new_value(S)`` for S + n (S a mask of N)."""
    return np.concatenate([v, np.array([new_value(s) for s in range(len(v))])])


def _permutation_conditional_shapley(v: np.ndarray, i: int) -> np.ndarray:
    """Remark 3.10: phi_{j|i} as the average marginal contribution of j over orders of N that start with i."""
    n = n_players(v)
    out = np.zeros(n)
    for order in itertools.permutations([k for k in range(n) if k != i]):
        mask = 1 << i
        for j in order:
            out[j] += v[mask | 1 << j] - v[mask]
            mask |= 1 << j
    return out / factorial(n - 1)


def _max_abs(x) -> float:
    return float(np.max(np.abs(x))) if np.size(x) else 0.0


def unconstrained_residuals(v: np.ndarray, rng: np.random.Generator) -> dict[str, float]:
    """Largest violation of each property of Section 3 (no budgets) on the game ``v``."""
    n = n_players(v)
    grand, own = v[-1], pf.singletons(v)
    a, F = pf.allocate(v), conditional_shapley(v)
    phi = a.shapley
    out = {
        "Shapley efficiency (T1)": abs(phi.sum() - grand),
        # two independent computations: Shapley values (Eq. 1) and conditional Shapley flows (Eq. 7); with Eq. 1,
        # balance, Cor. 3.2 (sign) and Cor. 3.3 (p_i - p_j = n (phi_i - phi_j), payoffs ordered like phi) follow
        "Eq. 1 = Eq. 7 (T3)": _max_abs(a.payoff - (n * phi - grand)),
        "fair cost, Eq. 4 (T9)": _max_abs(F.sum(axis=1) - (grand - own)),
        "decomposition, Eq. 6 (T10)": _max_abs(n * phi - own - F.sum(axis=0)),
    }
    if n <= 6:
        out["permutation form, Remark 3.10 (T11)"] = max(
            _max_abs(F[i] - _permutation_conditional_shapley(v, i)) for i in range(n)
        )
    w = rng.random(1 << n)
    w[0] = 0.0
    scale = float(rng.normal())
    aw, asum, ascaled = pf.allocate(w), pf.allocate(v + w), pf.allocate(scale * v)
    out["linearity of payoffs and flows (T8)"] = max(
        _max_abs(asum.payoff - a.payoff - aw.payoff),
        _max_abs(ascaled.payoff - scale * a.payoff),
        _max_abs(asum.flows - a.flows - aw.flows),
        _max_abs(ascaled.flows - scale * a.flows),
    )
    i = int(rng.integers(n))
    shifted = v + 0.37 * ((np.arange(1 << n) >> i) & 1)
    out["translation invariance, Cor. 3.8 (T12)"] = _max_abs(conditional_shapley(shifted)[i] - F[i])
    dummy = _extend(v, lambda s: v[s])
    out["dummy party pays v(N), conditional dummy (T7)"] = max(
        abs(pf.allocate(dummy).payoff[n] + grand), _max_abs(conditional_shapley(dummy)[:, n])
    )
    twin = _extend(v, lambda s: v[s | 1])  # player n duplicates player 0: S + n is worth S + 0
    at, Ft = pf.allocate(twin), conditional_shapley(twin)
    others = [k for k in range(n + 1) if k not in (0, n)]
    out["symmetry and conditional symmetry (T6)"] = max(
        abs(at.payoff[0] - at.payoff[n]), _max_abs(Ft[others, 0] - Ft[others, n])
    )
    omni = _extend(v, lambda s: grand)
    out["omnipotent party has no cost, Remark 3.11 (T13)"] = _max_abs(conditional_shapley(omni)[n])
    return out


def budget_residuals(v: np.ndarray, budgets: np.ndarray, rng: np.random.Generator) -> dict[str, float]:
    """Largest violation of each property of Section 4 (Lemma 4.1 and its consequences) under ``budgets``."""
    n = n_players(v)
    grand = v[-1]
    F = conditional_shapley(v)
    cost = F.sum(axis=1)
    a = pf.allocate(v, budgets)
    slack = [0.0 if cost[k] <= 1e-15 else min(1.0 - a.lam[k], abs(a.payoff[k] + budgets[k])) for k in range(n)]
    # random directions scaled back onto the feasible set's boundary (A (t x) = t A x <= b for t in [0, 1] as b >= 0)
    directions = rng.random((400, n))
    load = directions * cost - directions @ F
    with np.errstate(divide="ignore", invalid="ignore"):
        room = np.where(load > 1e-15, budgets / load, np.inf)
    feasible = directions * np.minimum(room.min(axis=1), 1.0)[:, None]
    return {
        "budgets respected (T15)": float(np.max(np.maximum(-a.payoff - budgets, 0.0))),
        "budget spent when binding (T16)": max(slack) * TOL / LP_TOL,
        "weak efficiency, Remark 4.2 (T19)": float(grand - a.model_value.max()),
        "LP equals the fixed-point iteration (our reimplementation of the authors' algorithm) (T20)": _max_abs(
            pf.fixed_point_lambda(F, budgets) - a.lam
        )
        * TOL
        / LP_TOL,
        "lambda* dominates sampled feasible lambdas (T20)": float(np.max(feasible - a.lam, initial=0.0)),
        "marginal contribution consistency, Eq. 9-11 (T18)": max(
            _max_abs(conditional_shapley(pf.adjusted_game(v, k, a.lam[k]))[k] - a.lam[k] * F[k]) for k in range(n)
        ),
    }


def budget_limit_residuals(v: np.ndarray, rng: np.random.Generator) -> dict[str, float]:
    """T21 (zero budgets pay nothing) and T22 (raising one budget lowers no lambda, so no model gets worse)."""
    n = n_players(v)
    zero = pf.allocate(v, np.zeros(n))
    raised = np.zeros(n)
    raised[int(rng.integers(n))] = 0.3 * v[-1]
    return {
        "zero budgets give zero payoffs (T21)": _max_abs(zero.payoff),
        "raising one budget lowers no lambda (T22)": float(
            np.max(np.maximum(zero.lam - pf.allocate(v, raised).lam, 0))
        ),
    }


def _all_residuals(v: np.ndarray, rng: np.random.Generator) -> dict[str, float]:
    n = n_players(v)
    out = unconstrained_residuals(v, rng)
    for label, budgets in (("zero", np.zeros(n)), ("random", rng.random(n) * 0.5 * max(v[-1], 1e-9))):
        out.update({f"{name}, {label} budgets": r for name, r in budget_residuals(v, budgets, rng).items()})
    out.update(budget_limit_residuals(v, rng))
    return out


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_every_property_on_random_monotone_games(n, monotone_game):
    rng = np.random.default_rng(100 + n)
    for _ in range(2):
        residuals = _all_residuals(monotone_game(n, rng), rng)
        assert not {name: r for name, r in residuals.items() if r > TOL}


def test_every_property_on_the_reference_table():
    # the stored table is slightly non-monotone (SGD noise); the properties still hold on it
    residuals = _all_residuals(REFERENCE, np.random.default_rng(0))
    assert not {name: r for name, r in residuals.items() if r > TOL}
    drops = pf.monotonicity_violations(REFERENCE)
    assert len(drops) == 5 and drops.max() <= 0.0012  # spec §3.2: five small drops, each <= 0.0012


# ---- library helpers ----


def test_rho_shapley_is_not_linear_but_the_flows_are():
    # Sec. 5: for rho != 1 the rho-Shapley rewards of v + w are not those of v plus those of w; the flows are linear
    n = 5
    w = REFERENCE[[sum(1 << ((k + 1) % n) for k in range(n) if s >> k & 1) for s in range(1 << n)]]  # relabelled
    phi_v, phi_w, phi_sum = shapley_values(REFERENCE), shapley_values(w), shapley_values(REFERENCE + w)
    grand = REFERENCE[-1]
    gap = pf.rho_shapley_rewards(phi_sum, 2 * grand, 0.5) - pf.rho_shapley_rewards(phi_v, grand, 0.5)
    gap -= pf.rho_shapley_rewards(phi_w, grand, 0.5)
    assert _max_abs(gap) > 0.1
    flows_gap = pf.allocate(REFERENCE + w).flows - pf.allocate(REFERENCE).flows - pf.allocate(w).flows
    assert _max_abs(flows_gap) < 1e-12


def test_rho_shapley_fit():
    zero = pf.allocate(REFERENCE, [0] * 5)
    gap, _ = pf.rho_shapley_gap(zero.model_value, zero.shapley, REFERENCE[-1])
    assert gap > 0.05
    assert (2, 3) in pf.order_conflicts(zero.model_value, zero.shapley)  # [0-3] has the smaller phi, the larger model
    # the fit itself finds a reward vector that is rho-Shapley
    fake = pf.rho_shapley_rewards(zero.shapley, REFERENCE[-1], 0.7)
    gap_fake, rho = pf.rho_shapley_gap(fake, zero.shapley, REFERENCE[-1])
    assert gap_fake < 1e-9 and rho == pytest.approx(0.7)


def test_lp_and_fixed_point_agree_and_lambda_grows_with_budgets():
    F = conditional_shapley(REFERENCE)
    rng = np.random.default_rng(3)
    previous = pf.budget_lambda(F, np.zeros(5))
    budgets = np.zeros(5)
    for _ in range(6):
        budgets = budgets + rng.random(5) * 0.05
        lam = pf.budget_lambda(F, budgets)
        np.testing.assert_allclose(lam, pf.fixed_point_lambda(F, budgets), atol=1e-7)
        assert np.all(lam >= previous - 1e-9)
        previous = lam


def test_adjusted_game_reproduces_scaled_flows():
    lam = pf.allocate(REFERENCE, [0] * 5).lam
    F = conditional_shapley(REFERENCE)
    for i in range(5):
        adjusted = pf.adjusted_game(REFERENCE, i, lam[i])
        np.testing.assert_allclose(conditional_shapley(adjusted)[i], lam[i] * F[i], atol=1e-12)  # Eq. 11
        assert adjusted[-1] == pytest.approx(REFERENCE[1 << i] + lam[i] * (REFERENCE[-1] - REFERENCE[1 << i]))  # Eq. 10


def test_non_monotone_tables_warn(monotone_game):
    with pytest.warns(pf.NonMonotoneGameWarning, match="5 drops"):
        pf.allocate(REFERENCE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pf.allocate(monotone_game(4, np.random.default_rng(0)))


@pytest.mark.parametrize(
    "v, budgets, match",
    [
        ([0.0, 1.0, 1.0], None, "2\\^n"),
        ([0.5, 1.0], None, "empty coalition"),
        ([0.0, 1.0, 1.0, 2.0], [0.0], "one value per party"),
        ([0.0, 1.0, 1.0, 2.0], [-1.0, 0.0], "non-negative"),
        ([0.0, 1.0, 1.0, 2.0], [np.nan, 0.0], "non-negative"),
    ],
)
def test_bad_input(v, budgets, match):
    with pytest.raises(ValueError, match=match):
        pf.allocate(v, budgets)
