"""The auctions' measured properties: truthfulness by misreporting over a grid (Sec. V-A, Theorem 8, Corollary 9) and
Corollary 10's closed forms against Monte Carlo on the minimum bids and on the auctions themselves."""

from __future__ import annotations

import numpy as np

from fairshare.games import auctions as au
from fairshare.papers.auctions import experiment as ap
from fairshare.papers.auctions import misreports as mr
from fairshare.pipeline.config import load_config
from tests.conftest import REPO

GRID = np.linspace(0, 1, 21)


def _costs(seed: int, users: int = 10):
    rng = np.random.default_rng(seed)
    costs = au.experiment5_bids(users, rng, 0.2, 0.2) if seed % 2 else rng.random((users, 2))
    return costs, float(rng.uniform(0.3, 4.0))


def test_budget_fair_with_threshold_payments_is_truthful():
    for seed in range(6):
        costs, budget = _costs(seed)
        summary = mr.misreport_profile("budget_fair", costs, budget, GRID, seed)
        assert summary["misreports"] == costs.size * len(GRID)
        assert summary["profitable"] == 0 and summary["max_gain"] <= 1e-9


def test_budget_fair_with_the_printed_uniform_price_is_not_truthful():
    costs = np.array([[0.1], [0.4], [0.45]])  # budget 1: users 0, 1 win at 1/2; user 2 (cost 0.45) loses
    lie = mr.misreport_grid(
        "budget_fair", costs, 1.0, user=2, task=0, reports=np.array([0.0]), seed=0, payment="uniform"
    )
    np.testing.assert_allclose(lie.gain, [0.5 - 0.45])  # under-bidding displaces user 1 and pays 1/2 > 0.45
    honest = mr.misreport_grid("budget_fair", costs, 1.0, user=2, task=0, reports=np.array([0.0]), seed=0)
    np.testing.assert_allclose(honest.gain, [0.4 - 0.45])  # threshold payment min(1/2, 0.4): the lie loses money


def test_gmmfair_rewards_an_overbidding_winner():
    costs = np.array([[0.1, 0.1], [0.2, 0.2], [0.9, 0.9]])  # B = 0.7: two users per task cost 0.6
    m = mr.misreport_grid("gmmfair", costs, 0.7, user=1, task=0, reports=np.array([0.3, 0.31]), seed=0)
    np.testing.assert_allclose(
        m.gain, [0.1, 0.0]
    )  # pay-as-bid: bidding 0.3 still wins (total 0.7); 0.31 loses (utility 0 again)


def test_maxmin_fair_misreports_lower_the_objective_by_at_most_two():
    drops, gains_mm, gains_gmm = [], [], []
    for seed in range(6):
        costs, budget = _costs(seed, users=12)
        mm = mr.misreport_profile("maxmin_fair", costs, budget, GRID, seed)
        gmm = mr.misreport_profile("gmmfair", costs, budget, GRID, seed)
        drops.append(mm["max_objective_drop"])
        gains_mm.append(mm["profitable"])
        gains_gmm.append(gmm["profitable"])
    assert max(drops) <= 2  # Corollary 9
    assert sum(gains_mm) < sum(gains_gmm)  # near-truthful: misreporting pays less often than under pay-as-bid GMMFair


def test_maxmin_fair_can_be_gamed_without_any_reallocation_round():
    # B = 2, B_s = 1, identical tasks: two users per task at price 1/2; in round 3 both tasks fail with nothing to
    # share, so no re-allocation or fractional round ever happens. The losing user 2 (cost 0.45) under-bids task 0,
    # displaces user 1 and is paid 1/2: a gain outside Theorem 8's cases (the printed proportional-share price).
    costs = np.array([[0.1, 0.1], [0.4, 0.4], [0.45, 0.45]])
    honest = au.maxmin_fair(costs, 2.0)
    assert [e.kind for e in honest.events] == ["stop"]
    m = mr.misreport_grid("maxmin_fair", costs, 2.0, user=2, task=0, reports=np.array([0.0]), seed=0)
    np.testing.assert_allclose(m.task_gain, [0.05])
    assert not m.in_event[0] and not m.truthful_won


def test_the_fixed_witness_still_refutes_theorem8():
    # THEOREM8_WITNESS re-run by the mechanism with the default switches: the lie gains in its task although its bid
    # takes part in no re-allocation or fractional round (neither run has one), by a user who loses when truthful.
    settings = ap.Settings.from_block(load_config(REPO / "config" / "config.yaml")["auctions"])
    w = ap.theorem8_witness(settings)
    np.testing.assert_allclose(w.task_gain, [0.05])
    assert not w.in_event[0] and not w.truthful_won
    costs, budget = np.array(ap.THEOREM8_WITNESS.costs), ap.THEOREM8_WITNESS.budget
    honest = au.run_mechanism("maxmin_fair", costs, budget, **settings.switches)
    assert all(e.kind == "stop" for e in honest.events)


def test_final_round_is_where_algorithm3_ends():
    assert au.maxmin_fair(np.array([[0.1, 0.3], [0.2, 0.9]]), 1.6).final_round() == 2  # fractional round 2
    assert au.maxmin_fair(np.array([[0.1, 0.5], [0.2, 0.6], [0.3, 0.9]]), 2.0).final_round() == 3  # stops in round 3
    assert au.maxmin_fair(np.full((4, 2), 0.1), 10.0).final_round() == 5  # everyone joins: never ends early
    assert au.gmmfair(np.array([[0.1, 0.3], [0.2, 0.9]]), 1.6).final_round() == 3  # no rounds


def test_misreport_grid_records_how_many_rounds_earlier_algorithm3_ends():
    costs, budget = _costs(1, users=12)
    m = mr.misreport_grid("maxmin_fair", costs, budget, user=7, task=1, reports=GRID, seed=0)
    end = au.maxmin_fair(costs, budget).final_round()
    for report, advance in zip(GRID, m.advance):
        bids = costs.copy()
        bids[7, 1] = report
        assert advance == end - au.maxmin_fair(bids, budget).final_round()
    assert m.truthful_won and m.advance.max() == 1  # a winner over-bidding ends the auction a round earlier
    summary = mr.misreport_profile("maxmin_fair", costs, budget, GRID, 0)
    assert summary["max_final_round_advance"] >= m.advance.max()
    assert np.all(mr.misreport_grid("gmmfair", costs, budget, 7, 1, GRID, 0).advance == 0)


def test_misreport_grid_records_whether_the_liar_stays_in_the_winning_set():
    # B = 2, B_s = 1. Truthfully user 1 wins task 0 (0.3 <= 1/2) and a fractional share of task 1 (0.9 > 1/2).
    # Reporting 0.4 for task 0 still fits; 0.8 or 50 makes both tasks fail in round 2 with no surplus, so the
    # auction stops and user 1 is in no winning set; its bid needed budget (Theorem 8's re-allocation step).
    costs = np.array([[0.1, 0.1], [0.3, 0.9]])
    m = mr.misreport_grid("maxmin_fair", costs, 2.0, user=1, task=0, reports=np.array([0.4, 0.8, 50.0]), seed=0)
    assert m.truthful_won and m.truthful_recruited_any
    assert m.recruited.tolist() == [True, False, False] and m.recruited_any.tolist() == [True, False, False]
    assert m.needs_budget.tolist() == [False, True, True]
    # with task 1 cheap (0.2) the other task has surplus: 0.7 is re-allocated, 0.8 and 50 get a fractional share
    cheap = np.array([[0.1, 0.1], [0.3, 0.2]])
    m = mr.misreport_grid("maxmin_fair", cheap, 2.0, user=1, task=0, reports=np.array([0.7, 0.8, 50.0]), seed=0)
    assert m.recruited.all() and m.needs_budget.all()


def test_a_bid_above_the_budget_is_never_recruited():
    for seed in range(4):
        costs, budget = _costs(seed, users=8)
        for mechanism, switches in (
            ("budget_fair", {}),
            ("greedy_within_budget", {}),
            ("maxmin_fair", {"fractional": False}),
        ):
            for user, task in ((0, 0), (5, 1)):
                m = mr.misreport_grid(
                    mechanism, costs, budget, user, task, np.array([2 * budget + 1]), seed, **switches
                )
                assert not m.recruited[0], (seed, mechanism)
        m = mr.misreport_grid("maxmin_fair", costs, budget, 3, 1, GRID, seed)  # the flags are the rerun's own
        for report, recruited, anywhere in zip(GRID, m.recruited, m.recruited_any):
            bids = costs.copy()
            bids[3, 1] = report
            x = au.maxmin_fair(bids, budget).x
            assert recruited == (x[3, 1] > 0) and anywhere == (x[3] > 0).any()


def test_misreport_profile_counts_the_liars_outside_the_winning_set():
    costs, budget = _costs(1, users=12)
    summary = mr.misreport_profile("maxmin_fair", costs, budget, GRID, 0)
    grids = [mr.misreport_grid("maxmin_fair", costs, budget, u, s, GRID, 0) for u in range(12) for s in range(2)]
    over = [(m.reports > costs[m.user, m.task]) & m.needs_budget for m in grids]
    assert summary["liar_out"] == sum(int((~m.recruited).sum()) for m in grids)
    assert summary["theorem8_conditions"] == sum(int(c.sum()) for c in over) > 0
    assert summary["theorem8_conditions_liar_out"] == sum(int((c & ~m.recruited).sum()) for c, m in zip(over, grids))
    assert summary["theorem8_conditions_liar_out"] >= summary["theorem8_conditions_liar_out_any_task"]
    assert mr.misreport_profile("budget_fair", costs, budget, GRID, 0)["theorem8_conditions"] == 0  # no rounds


def test_misreport_grid_uses_common_random_numbers_for_random_mechanisms():
    costs, budget = _costs(3, users=15)
    m = mr.misreport_grid(
        "random_within_budget", costs, budget, user=0, task=1, reports=np.array([costs[0, 1]]), seed=4
    )
    np.testing.assert_allclose(m.gain, 0.0)  # reporting the true cost again reproduces the truthful run exactly


def test_corollary10_against_monte_carlo_and_the_auctions():
    rng = np.random.default_rng(3)
    x = rng.exponential(1.0, size=(20000, 2))
    assert np.all(x.max(axis=1)[x.sum(axis=1) >= 2.0] >= 1.0)  # sum >= B implies max >= B/S: the corollary's inequality
    for y in (1.0, 2.0):
        exact = au.corollary10(y)
        mc = ap.corollary10_monte_carlo(y, 200_000, np.random.default_rng(int(10 * y)))
        np.testing.assert_allclose(mc, exact, atol=4 * np.sqrt(0.25 / 200_000))
        runs = ap.corollary10_auctions(y, users=4, draws=1500, rng=np.random.default_rng(int(20 * y)))
        np.testing.assert_allclose(runs, exact, atol=4 * np.sqrt(0.25 / 1500))


def test_pay_as_bid_mechanisms_are_not_truthful_by_design():
    # Fig. 7's NT, a unit test rather than a row: GMMFair, Greedy and Random Within Budget pay each winner its bid,
    # so a winner whose raised bid still fits the budget gains; the sweep finds such misreports on every mechanism.
    for mechanism in ("gmmfair", "greedy_within_budget", "random_within_budget"):
        found = [mr.misreport_profile(mechanism, *_costs(seed), GRID, seed) for seed in range(4)]
        assert sum(f["profitable"] for f in found) > 0, mechanism
        assert max(f["max_gain"] for f in found) > 0.05, mechanism


def test_gmmfair_upper_bounds_the_whole_client_budgeted_mechanisms():
    # Lemma 7 on Exp 5's own profiles: Budget-Fair, Greedy and Random Within Budget recruit whole clients within B at
    # payments of at least their bids, a feasible point of GMMFair's problem, so their minimum never exceeds GMMFair's
    # (why the Fig. 7b "highest minimum" row compares GMMFair only with max-min fair and the posted prices). Max-min
    # fair's fractional last winner can lift its minimum above GMMFair's, by less than one client.
    block = load_config(REPO / "config" / "test.yaml")["auctions"]
    settings = ap.Settings.from_block({**block, "budgets": [1, 2, 5, 10, 29, 50, 100], "seeds": 4})
    low = ap.exp5(settings, root=7, progress=False).query("metric == 'min_recruited'")
    table = low.pivot_table(index=["budget", "seed"], columns="method", values="value")
    for rival in ("budget_fair", "greedy_within_budget", "random_within_budget"):
        assert (table[rival] <= table["gmmfair"]).all(), rival
    assert (table["maxmin_fair"] < table["gmmfair"] + 1).all()
