"""Config validation: defaults filled in, and one clear line naming the key for every kind of bad input."""
from __future__ import annotations

import copy

import pytest
import yaml

from fairshare.config import ConfigError, load_config, validate_config
from tests.conftest import REPO


@pytest.fixture(scope="module")
def default_config():
    return yaml.safe_load((REPO / "config" / "config.yaml").read_text())


@pytest.mark.parametrize("profile", ["config.yaml", "test.yaml", "paper.yaml"])
def test_every_profile_validates(profile):
    files = [REPO / "config" / "config.yaml"] + ([REPO / "config" / profile] if profile != "config.yaml" else [])
    cfg = load_config(*files)
    assert cfg["data"]["raw_dir"] == "data/raw"
    assert isinstance(cfg["seed"], int)


def test_defaults_are_filled(default_config):
    cfg = validate_config({"partitions": [{"name": "x", "dataset": "digits", "scheme": "dirichlet", "clients": 3}]})
    assert cfg["partitions"][0]["alpha"] == 0.5 and cfg["data"]["allow_download"] is False


@pytest.mark.parametrize("mutate, needle", [
    (lambda c: c.update(sedd=1), "unknown config key 'sedd'"),
    (lambda c: c["data"].update(allow_download="yes"), "'data.allow_download'"),
    (lambda c: c.update(seed=-4), "'seed': value -4 is out of range"),
    (lambda c: c["partitions"][1].update(alpha=0), "'partitions.1.alpha'"),
    (lambda c: c["partitions"][0].update(scheme="bogus"), "'partitions.0.scheme': value 'bogus' is not allowed"),
    (lambda c: c.update(device="tpu"), "allowed values: 'auto', 'cpu', 'cuda'"),
    (lambda c: c["aequa"].update(p_min={"digits": 0.03}), "'aequa.p_min' is missing a required entry: 'default'"),
    (lambda c: c["aequa"].update(p_min={"default": 0.1, "digits": 1.5}), "'aequa.p_min.digits': value 1.5 is out of range"),
    (lambda c: c["aequa"].update(p_min_ablation=0), "'aequa.p_min_ablation': value 0 is out of range"),
])
def test_bad_config_gives_one_line_naming_the_key(default_config, mutate, needle):
    cfg = copy.deepcopy(default_config)
    mutate(cfg)
    with pytest.raises(ConfigError) as info:
        validate_config(cfg)
    message = str(info.value)
    assert needle in message
    assert "\n" not in message


def test_aequa_p_min_is_one_number_or_per_dataset():
    from fairshare.papers.aequa.commands import describe_per_dataset, lookup

    cfg = load_config(REPO / "config" / "config.yaml", overrides={"aequa": {"p_min": 0.2}})
    assert lookup(cfg["aequa"]["p_min"], "digits") == 0.2
    mapping = {"default": 0.1, "digits": 0.03}
    assert lookup(mapping, "digits", "fashion_mnist") == 0.03  # the data actually used decides first
    assert lookup(mapping, "synthetic") == 0.1
    assert describe_per_dataset(mapping) == "0.1 (digits 0.03)" and describe_per_dataset(0.25) == "0.25"
