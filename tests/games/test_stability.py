"""Stability: the vectorised checker against a literal implementation of the definitions, and the paper's claims."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from fairshare.games import stability as st

BELL = {1: 1, 2: 2, 3: 5, 4: 15, 5: 52, 6: 203, 7: 877}


@pytest.mark.parametrize("m", range(1, 8))
def test_set_partitions_count_and_validity(m):
    parts = list(st.set_partitions(m))
    assert len(parts) == BELL[m] == len(set(parts))
    for p in parts:
        assert sorted(j for b in p for j in b) == list(range(m))


def _literal(n, method, notion):
    """The definitions (§1, Bogomolnaia & Jackson 2002) applied directly, one partition at a time."""
    table = st.coalition_table(n, mu_e=10, sigma2=1, method=method)
    out = []
    for part in st.set_partitions(len(n)):
        own = {j: sum(1 << k for k in b) for b in part for j in b}
        cur = {j: table[own[j]][j] for j in own}
        if notion == "core":
            ok = not any(all(row[j] < cur[j] for j in row) for row in table.values())
        elif notion == "strict_core":
            ok = not any(
                all(row[j] <= cur[j] for j in row) and any(row[j] < cur[j] for j in row) for row in table.values()
            )
        else:
            ok = True
            for i in own:
                for t in [sum(1 << k for k in b) for b in part] + [0]:
                    if t == own[i]:
                        continue
                    new = t | 1 << i
                    if table[new][i] < cur[i] and all(table[new][k] <= table[t][k] for k in table.get(t, {})):
                        ok = False
        if ok:
            out.append(part)
    return out


@pytest.mark.parametrize("method", ["uniform", "coarse", "fine"])
@pytest.mark.parametrize("notion", st.NOTIONS)
def test_vectorised_checker_equals_definitions(method, notion):
    rng = np.random.default_rng(zlib.crc32(f"{method}/{notion}".encode()))  # stable across runs (str hash is salted)
    for _ in range(6):
        n = rng.integers(1, 40, size=int(rng.integers(2, 6))).tolist()
        assert st.stable_partitions(n, mu_e=10, sigma2=1, method=method, notion=notion) == _literal(
            n, method, notion
        ), n


@pytest.mark.parametrize(
    "n, method, expected",
    [
        ((5, 5, 5), "uniform", {"core": ["{a,b,c}"], "individual": ["{a,b,c}"]}),
        ((5, 5, 25), "uniform", {"core": ["{a,b},{c}"], "individual": ["{a,b},{c}"]}),
        ((25, 25, 25), "uniform", {"core": ["{a},{b},{c}"], "individual": ["{a},{b},{c}"]}),
        ((30, 30, 30, 300), "coarse", {"core": ["{a,b,c},{d}"], "individual": ["{a,b,c,d}", "{a,b,c},{d}"]}),
        ((30, 30, 30, 300), "fine", {"core": ["{a,b,c,d}"], "individual": ["{a,b,c,d}"]}),
    ],
)
def test_stability_statements_of_tables_1_to_5(n, method, expected):
    for notion, want in expected.items():
        got = [st.describe(p) for p in st.stable_partitions(n, mu_e=10, sigma2=1, method=method, notion=notion)]
        assert sorted(got) == sorted(want)


def test_exact_tie_at_threshold_makes_every_partition_core_stable():
    # Cor 5.2: n = mu_e / sigma2 -> every player's error is sigma2 in every coalition: all 15 partitions are in the core.
    assert len(st.stable_partitions([10] * 4, mu_e=10, sigma2=1, method="uniform", notion="core")) == 15


def test_two_type_checker_equals_player_level():
    rng = np.random.default_rng(5)
    for _ in range(12):
        n_s, n_l = sorted(rng.choice(np.arange(1, 60), size=2, replace=False).tolist())
        S, L = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        method = ["uniform", "coarse", "fine"][int(rng.integers(3))]
        game = st.TwoTypeGame(n_s, n_l, S, L, mu_e=10, sigma2=1, method=method)
        sizes = [n_s] * S + [n_l] * L
        for notion in st.NOTIONS:
            players = st.stable_partitions(sizes, mu_e=10, sigma2=1, method=method, notion=notion)
            as_types = {st.typed([(sum(j < S for j in b), sum(j >= S for j in b)) for b in p]) for p in players}
            assert as_types == set(game.stable(notion)), (n_s, n_l, S, L, method, notion)


def test_example_c6_individually_stable_not_core_for_seven_large():
    for L, core in ((6, True), (7, False)):
        game = st.TwoTypeGame(11, 106, 70, L, mu_e=100, sigma2=1, method="uniform")
        p = st.theorem_5_5_partition(game)
        assert (70, 3) in p and game.is_individually_stable(p)
        assert game.is_core(p) == core
    assert game.blocking(p) == [(67, 4), (68, 4)]


def test_theorem_6_5_tie_goes_to_the_grand_coalition():
    game = st.TwoTypeGame(5, 50, 6, 1, mu_e=10, sigma2=1, method="coarse")
    assert game.err(6, 1)[0] == game.err(6, 0)[0]  # exact tie, 8/9
    assert st.theorem_6_5_partition(game) == st.grand(game)
    assert game.is_strict_core(st.grand(game)) and not game.is_strict_core(st.split(game))


def test_theorem_6_5_partition_is_the_only_strictly_core_stable_one():
    """Not claimed by the paper: on small populations the Thm 6.5 partition is the unique strict-core element."""
    for n_s, n_l in ((1, 50), (5, 50), (10, 300), (30, 300)):
        for S in range(1, 3):
            for L in range(1, 3):
                game = st.TwoTypeGame(n_s, n_l, S, L, mu_e=10, sigma2=1, method="coarse")
                assert game.stable("strict_core") == [st.theorem_6_5_partition(game)]


def test_unknown_notion():
    with pytest.raises(ValueError, match="unknown stability notion"):
        st.stable_partitions([1, 2], mu_e=1, sigma2=1, method="uniform", notion="nash")


@pytest.mark.parametrize("n", [(10, 10, 10, 10), (30, 30, 30, 300), (5, 5, 25, 25, 7)])
@pytest.mark.parametrize("method", ["uniform", "coarse", "fine"])
def test_rank_matrix_orders_exactly_like_the_exact_table(n, method):
    ranks = st.rank_matrix(n, mu_e=10, sigma2=1, method=method)
    table = st.coalition_table(n, mu_e=10, sigma2=1, method=method)
    for j in range(len(n)):
        masks = [mask for mask in table if j in table[mask]]
        for a in masks:
            for b in masks:
                assert (ranks[a, j] < ranks[b, j]) == (table[a][j] < table[b][j])
                assert (ranks[a, j] == ranks[b, j]) == (table[a][j] == table[b][j])


def test_table_2_and_4_constructions():
    # Table 2 (uniform, n = 5, 5, 25): Thm 5.5 gives {a,b},{c}; Table 4 (coarse, 30, 30, 30, 300): Thm 6.5 gives {a,b,c},{d}.
    t2 = st.TwoTypeGame(5, 25, 2, 1, mu_e=10, sigma2=1, method="uniform")
    assert st.paper_partition(t2) == (((2, 0), (0, 1)), "individual", "Thm 5.5")
    assert t2.stable("core") == [((2, 0), (0, 1))]
    t4 = st.TwoTypeGame(30, 300, 3, 1, mu_e=10, sigma2=1, method="coarse")
    assert st.theorem_6_5_partition(t4) == st.split(t4) and t4.stable("strict_core") == [st.split(t4)]
    t5 = st.TwoTypeGame(30, 300, 3, 1, mu_e=10, sigma2=1, method="fine")
    assert st.paper_partition(t5)[0] == st.grand(t5) and t5.stable("core") == [st.grand(t5)]


def test_individual_moves_name_the_deviation():
    # Table 4's grand coalition is individually stable, {a},{b},{c},{d} is not: a small player joins another (Cor 6.2).
    game = st.TwoTypeGame(30, 300, 3, 1, mu_e=10, sigma2=1, method="coarse")
    assert game.individual_moves(st.grand(game)) == []
    moves = game.individual_moves(st.all_local(game))
    assert moves and all(to != (0, 0) for _, _, to in moves)


def test_typed_partition_validation_and_labels():
    game = st.TwoTypeGame(1, 20, 2, 2, mu_e=10, sigma2=1, method="uniform")
    with pytest.raises(ValueError, match="does not cover"):
        game.is_core(((2, 1),))
    assert st.describe_typed(st.typed([(2, 0), (0, 1), (0, 1)])) == "pi(2,0) + 2 x pi(0,1)"
    assert st.describe(((0, 1), (2,))) == "{a,b},{c}"
