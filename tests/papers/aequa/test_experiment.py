"""How one Aequa job orders its runs: seed by seed, each seed's standalone run (the contributions) first."""

from __future__ import annotations

import pytest

from fairshare.papers.aequa.experiment import Run, job_order
from fairshare.pipeline.config import ConfigError


def _runs(*pairs: tuple[int, str]) -> list[Run]:
    return [Run(s, m, f"{m}{s}.json", f"{m}{s}.pt") for s, m in pairs]


def test_each_seed_starts_with_its_standalone_run():
    runs = _runs((0, "aequa"), (1, "cgsv"), (0, "standalone"), (1, "standalone"), (0, "iafl"))
    order = [(r.seed, r.method) for r in job_order(runs)]
    assert order == [(0, "standalone"), (0, "aequa"), (0, "iafl"), (1, "standalone"), (1, "cgsv")]


def test_a_seed_without_its_standalone_run_is_refused():
    with pytest.raises(ConfigError, match="seed 1: cgsv needs the seed's standalone run"):
        job_order(_runs((0, "standalone"), (0, "aequa"), (1, "cgsv")))


def test_settings_are_read_once_from_the_block():
    from fairshare.papers.aequa.settings import AequaSettings, ExtensionSettings
    from fairshare.pipeline.config import load_config
    from tests.conftest import REPO

    block = load_config(REPO / "config" / "test.yaml")["aequa"]
    settings = AequaSettings.from_block(block)
    assert settings.partition("qskew0.4x1").spec("digits", 4) == {
        "scheme": "quantity_skew",
        "share": 0.4,
        "n_large": 1,
        "clients": 4,
    }
    assert settings.tables.curve_partition == "homogeneous" and settings.allocation.annealing("var")["spread"] == "var"
    job_block = {k: v for k, v in block.items() if k not in ("datasets", "seeds", "methods", "participation")}
    job = ExtensionSettings.from_block(job_block)  # a training job's --cfg: no table or other extension keys
    assert job.aequa.tables is None and job.participation is None and job.scale.partition.name == "writers"
    with pytest.raises(ConfigError, match="partition 'dir9' is not in aequa.partitions"):
        settings.partition("dir9")


def test_the_method_table_fixes_p_min_and_the_assessment_not_the_names():
    from fairshare.papers.aequa.methods import METHODS

    assert METHODS["aequa_pmin"].lower_p_min and not METHODS["aequa"].lower_p_min
    assert (METHODS["aequa_cgsv"].assessment, METHODS["aequa_shapfed"].assessment) == ("cgsv", "shapfed")


def test_torch_seed_of_a_run_is_its_stream_integer_in_31_bits():
    from fairshare import seeding

    seed = seeding.torch_seed(7, "aequa/torch/digits/homogeneous/aequa", 0)
    assert seed == seeding.integer_seed(7, "aequa/torch/digits/homogeneous/aequa", 0) % 2**31
