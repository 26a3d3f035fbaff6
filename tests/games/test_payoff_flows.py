"""Payoffs, payoff flows and budgets: hand-derived games, every property on random games and on the authors' table,
and the paper's Section 5 observations on the authors' stored MNIST values."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from fairshare.games import payoff_flows as pf
from fairshare.games.shapley import conditional_shapley, shapley_values
from fairshare.papers.payoff_flows.claims import OHRIMENKO_PAYOFFS, PAPER_PARTIES, paper_observations
from fairshare.papers.payoff_flows.experiment import check_properties, quiet_allocate, random_monotone_game
from tests.conftest import REPO

FIXTURE = json.loads((REPO / "workflow" / "reference" / "payoff_mnist_5parties_v.json").read_text())
REFERENCE = np.array(FIXTURE["v"])
# conventions.md "Lessons" item 1: v({0}) = v({1}) = 1, v({0,1}) = 2, every other non-empty coalition 3
THREE = np.array([0.0, 1.0, 1.0, 2.0, 3.0, 3.0, 3.0, 3.0])


def test_fixture_has_provenance_and_the_paper_layout():
    assert len(REFERENCE) == 32 and REFERENCE[0] == 0 and tuple(FIXTURE["parties"]) == PAPER_PARTIES
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


def test_conventions_budget_cases():
    zero = quiet_allocate(REFERENCE, [0] * 5)
    assert np.all(zero.payoff >= -1e-12)  # every income >= -budget
    unlimited = quiet_allocate(REFERENCE)
    np.testing.assert_allclose(unlimited.model_value, REFERENCE[-1])
    np.testing.assert_allclose(quiet_allocate(REFERENCE, [np.inf] * 5).lam, 1.0)


def test_public_api_shapes_and_identities():
    a = quiet_allocate(REFERENCE, [0.3, 0, 0, 0, 0])
    for field in ("shapley", "payoff", "lam", "model_value"):
        assert getattr(a, field).shape == (5,)
    assert a.flows.shape == (5, 5) and np.all(np.diag(a.flows) == 0)
    np.testing.assert_allclose(a.payoff, a.flows.sum(axis=0) - a.flows.sum(axis=1))  # row i pays column j
    np.testing.assert_allclose(pf.payoff_vector(REFERENCE), 5 * shapley_values(REFERENCE) - REFERENCE[-1])
    np.testing.assert_allclose(pf.payoff_flow_matrix(REFERENCE), conditional_shapley(REFERENCE))


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_every_property_on_random_monotone_games(n):
    rng = np.random.default_rng(100 + n)
    for _ in range(2):
        failed = [(c.name, c.residual) for c in check_properties(random_monotone_game(n, rng), rng) if not c.holds]
        assert not failed


def test_every_property_on_the_reference_table():
    checks = list(check_properties(REFERENCE, np.random.default_rng(0)))
    assert not [c.name for c in checks if c.kind == "property" and not c.holds]
    monotone = next(c for c in checks if c.kind == "diagnostic")
    assert not monotone.holds and monotone.residual <= 0.0012  # spec §3.2: five small drops, each <= 0.0012


def test_every_paper_observation_on_the_reference_table():
    observations = list(paper_observations(REFERENCE, PAPER_PARTIES))
    assert len(observations) >= 20
    assert not [o.claim for o in observations if not o.holds]


def test_reference_payoffs_differ_from_ohrimenko_but_share_their_order():
    # Sec. 5 quotes [13]'s payoffs; ours differ (n phi - v(N)) yet rank the parties the same way
    ours = quiet_allocate(REFERENCE).payoff
    assert np.max(np.abs(ours - OHRIMENKO_PAYOFFS)) > 0.05
    assert list(np.argsort(ours)) == list(np.argsort(OHRIMENKO_PAYOFFS))


def test_rho_shapley_cannot_produce_zero_budget_rewards():
    zero = quiet_allocate(REFERENCE, [0] * 5)
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
    lam = quiet_allocate(REFERENCE, [0] * 5).lam
    F = conditional_shapley(REFERENCE)
    for i in range(5):
        adjusted = pf.adjusted_game(REFERENCE, i, lam[i])
        np.testing.assert_allclose(conditional_shapley(adjusted)[i], lam[i] * F[i], atol=1e-12)  # Eq. 11
        assert adjusted[-1] == pytest.approx(REFERENCE[1 << i] + lam[i] * (REFERENCE[-1] - REFERENCE[1 << i]))  # Eq. 10


def test_non_monotone_tables_warn():
    with pytest.warns(pf.NonMonotoneGameWarning, match="5 drops"):
        pf.allocate(REFERENCE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pf.allocate(random_monotone_game(4, np.random.default_rng(0)))
    assert len(pf.monotonicity_violations(REFERENCE)) == 5


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
