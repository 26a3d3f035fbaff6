"""Settings from the config block, the coalition valuation on digits, the value table and the allocation tables."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from fairshare import seeding
from fairshare.data.datasets import build_dataset
from fairshare.papers.payoff_flows import claims as c
from fairshare.papers.payoff_flows import experiment as ex
from fairshare.pipeline.config import load_config
from tests.conftest import REPO

pytestmark = pytest.mark.filterwarnings("ignore::fairshare.games.payoff_flows.NonMonotoneGameWarning")

PAPER_RANGES = [[0, 0], [1, 2], [0, 3], [3, 5], [6, 9]]


@pytest.fixture(scope="module")
def digits():
    return build_dataset("digits", rng=seeding.generator(0, "dataset"))


@pytest.fixture
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as in the pipeline's jobs (and much faster for this tiny MLP on a busy machine)
    yield
    torch.set_num_threads(threads)


def _valuation(**changes) -> ex.Valuation:
    block = {**load_config(REPO / "config" / "config.yaml")["payoff_flows"], **changes}
    return ex.Valuation.from_config(block, seed=5)


def test_settings_from_every_profile():
    for name in ("config", "paper", "test"):
        config = load_config(*[REPO / "config" / f for f in ("config.yaml", f"{name}.yaml")])
        st = ex.Valuation.from_config(config["payoff_flows"], config["seed"])
        assert st.parties == ex.party_names(config["payoff_flows"]["label_ranges"])
        scenarios = ex.Analysis.from_config(config["payoff_flows"], config["seed"]).budget_scenarios
        assert len(scenarios) == 3 and scenarios[0].budgets is None
        assert all(len(s.budgets) == st.n_parties for s in scenarios[1:])
    assert _valuation().parties == ["[0]", "[1-2]", "[0-3]", "[3-5]", "[6-9]"]
    assert set(ex.Valuation.KEYS) == set(ex.Valuation.__dataclass_fields__) - {"seed"}


def test_value_coalition_and_table(digits, one_thread):
    st = _valuation(dataset="digits", label_ranges=[[0, 4], [5, 9]], epochs=1)
    records = {mask: ex.value_coalition(st, digits, mask) for mask in (1, 2, 3)}
    assert records[3]["train_samples"] == records[1]["train_samples"] + records[2]["train_samples"]
    assert records[3]["value"] == st.nu * records[3]["accuracy"] and records[1]["members"] == [0]
    assert ex.value_coalition(st, digits, 3) == records[3]  # one fixed initialisation and data order per coalition
    table = ex.value_table(st, records, {"seed": 5})
    assert table["v"] == [0.0] + [records[m]["value"] for m in (1, 2, 3)] and table["parties"] == ["[0-4]", "[5-9]"]
    json.dumps(table)  # plain JSON


def test_allocation_tables():
    v = np.array([0.0, 1.0, 1.0, 2.0, 3.0, 3.0, 3.0, 3.0])
    scenarios = (ex.Scenario("b = inf", None), ex.Scenario("b = 1 for A", (1.0, 0.0, 0.0)))
    alloc, flows = ex.allocations(v, ["A", "B", "C"], scenarios, "hand", 9)
    assert len(alloc) == 6 and len(flows) == 18
    assert alloc["budget"].tolist() == [np.inf] * 3 + [1.0, 0.0, 0.0]
    assert set(alloc["experiment"]) == {"hand"} and set(alloc["seed"]) == {9}
    one = alloc[alloc["scenario"] == "b = 1 for A"]
    np.testing.assert_allclose(one["lam"], [8 / 15, 2 / 15, 1], atol=1e-9)  # tests/games: hand-derived


def test_the_paper_parties_on_a_table_trained_here(digits, one_thread):
    # the paper's five label-range parties on digits: 31 coalitions, 5 epochs each (a few seconds); every statement
    # of Section 5 gets a verdict on this table (whichever way it comes out)
    st = _valuation(dataset="digits", label_ranges=PAPER_RANGES, epochs=5)
    v = [0.0] + [ex.value_coalition(st, digits, mask)["value"] for mask in range(1, 32)]
    alloc, flows = ex.allocations(v, st.parties, ex.PAPER_SCENARIOS, "trained", st.seed)
    rows = c.claims({"trained": ex.read_table("trained", "digits", alloc, flows)}, None)
    rows = [r for r in rows if r.artifact != "App. J"]  # App. J: a CIFAR-10 table only
    checked = [r for r in rows if r.status != "not run in this profile"]
    assert len(checked) == len(rows) == 12 and all(r.status in ("match", "differs") for r in checked)
