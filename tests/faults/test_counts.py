"""Issue 40, row 4: every count that multiplies work (seeds of the training steps, Exp 5's seeds, Monte Carlo worlds,
Corollary 10's and Theorem 11's draws, the DP paper's instances) feeds the size estimate, which refuses a config too
big in one line naming the key, in seconds and before Snakemake plans; every shipped profile still fits."""

from __future__ import annotations

import time

import pytest
import yaml

from fairshare.pipeline import config, resources
from tests.conftest import REPO

BIG = 1_000_000_000
HUGE = 1_000_000_000_000
CASES = {
    "mmfl.seeds": ({"mmfl": {"seeds": BIG}}, "mmfl.seeds", "Snakemake plan about"),
    "aequa.seeds": ({"aequa": {"seeds": BIG}}, "aequa.seeds", "Snakemake plan about"),
    "auctions.exp6.seeds": ({"auctions": {"exp6": {"seeds": BIG}}}, "auctions.exp6.seeds", "Snakemake plan about"),
    "auctions.seeds": ({"auctions": {"seeds": BIG}}, "auctions.seeds", "its job takes about"),
    "worlds": (
        {"model_sharing": {"monte_carlo": {"worlds": HUGE}}},
        "model_sharing.monte_carlo.worlds",
        "its job takes about",
    ),
    "corollary_draws": ({"auctions": {"corollary_draws": HUGE}}, "auctions.corollary_draws", "GB of memory"),
    "auction_draws": (
        {"auctions": {"corollary10": {"auction_draws": BIG}}},
        "auctions.corollary10.auction_draws",
        "its job takes about",
    ),
    "theorem11": ({"auctions": {"theorem11": {"draws": BIG}}}, "auctions.theorem11.draws", "its job takes about"),
    "dp_instances": ({"dp_coalitions": {"claims_instances": BIG}}, "dp_coalitions.claims_instances", "its job takes"),
}


@pytest.mark.parametrize("override, key, why", CASES.values(), ids=CASES)
def test_a_count_that_multiplies_work_is_refused_in_seconds(tmp_path, capsys, monkeypatch, override, key, why):
    monkeypatch.chdir(REPO)
    extra = tmp_path / "big.yaml"
    extra.write_text(yaml.safe_dump(override))
    start = time.monotonic()
    assert config.main(["--configfile", "config/test.yaml", str(extra)]) == 2
    assert time.monotonic() - start < 10
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"fairshare: invalid config: {extra}: {key}: "), err
    assert why in err


def _runs(cfg) -> dict:
    out: dict = {}
    for key, n in resources.planned_runs(cfg):
        out[key] = out.get(key, 0) + n
    return out


def test_the_planned_runs_count_every_seeded_step(monkeypatch):
    monkeypatch.chdir(REPO)
    cfg = config.load_config(config.DEFAULT_CONFIG, "config/test.yaml")
    # test profile, one seed each: multi-model FL 3 + 3 + 2 methods x 2 alphas; Exp 6 2 mechanisms; Aequa 1 dataset
    # x 2 partitions x (standalone + 4 methods); extensions (2 + 2 methods and the scale run) x 3 extension seeds
    expected = {("mmfl", "seeds"): 10, ("auctions", "exp6", "seeds"): 2, ("aequa", "seeds"): 10}
    assert _runs(cfg) == {**expected, ("aequa", "extension_seeds"): 15}
    more = config.load_config(config.DEFAULT_CONFIG, "config/test.yaml", overrides={"mmfl": {"seeds": 3}})
    assert _runs(more)[("mmfl", "seeds")] == 30
    for files in ([], ["config/paper.yaml"]):  # the shipped profiles plan far fewer runs than the bound
        assert sum(_runs(config.load_config(config.DEFAULT_CONFIG, *files)).values()) < resources.PLANNED_RUNS_MAX / 10
