"""Every tensor has an explicit device: each training command of every paper runs a round with torch's default
device set to ``meta``.

The run's own device is the CPU (``device: cpu`` in its config). A tensor that the code makes without naming a device
then lands on ``meta`` and fails at its first meeting with one that has the run's device -- the error a GPU run gives
when such a tensor stays on the CPU (CGSV's reputation did: "Expected all tensors to be on the same device ...
cuda:0 and cpu"). Inputs (dataset caches, recruitments) are made before the default device changes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from fairshare import seeding
from fairshare.cli import main
from fairshare.pipeline.config import load_config
from tests.conftest import REPO

pytestmark = pytest.mark.usefixtures("one_torch_thread")
AEQUA_METHODS = ("standalone", "fedavg_ft", "cgsv", "iafl", "aequa", "aequa_pmin")
TRAINING_TIME_METHODS = ("fedavg_ft", "cgsv", "iafl", "aequa", "aequa_cgsv", "aequa_shapfed")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """Dataset caches of digits and the synthetic task, the test profile's config cut to a round or two, and the
    standalone run the training-time methods read their contributions from."""
    from fairshare.data.datasets import build_dataset, save_cache

    tmp = tmp_path_factory.mktemp("devices")
    for name in ("digits", "synthetic"):
        save_cache(build_dataset(name, rng=seeding.generator(3, "dataset")), tmp / f"{name}.npz")
    config = load_config(REPO / "config" / "test.yaml")
    aequa = config["aequa"]
    aequa.update(clients=3, max_train_samples={"default": 300}, test_subset=100)
    aequa["allocation"] = {**aequa["allocation"], "iters": 200}
    aequa["train"] = {**aequa["train"], "rounds": {"default": 2}}
    aequa["scale"] = {**aequa["scale"], "clients": 6, "rounds": 2}
    mmfl = config["mmfl"]
    mmfl["experiments"] = [{**e, "rounds": 1} for e in mmfl["experiments"]]
    config["auctions"]["exp6"] = {**config["auctions"]["exp6"], "rounds": 1}
    config["payoff_flows"] = {**config["payoff_flows"], "epochs": 1}
    for block in ("aequa", "mmfl", "auctions", "payoff_flows"):
        common = {"seed": 3, "device": "cpu", block: config[block]}
        if block == "auctions":
            common["mmfl"] = mmfl
        (tmp / f"{block}.json").write_text(json.dumps(common))
    digits = ["--dataset", "digits", "--dataset-file", str(tmp / "digits.npz"), "--partition", "qskew0.4x1"]
    contributions = ["--run", "0", "standalone", str(tmp / "contributions.json"), str(tmp / "contributions.pt")]
    assert main(["aequa", "run", *digits, *contributions, "--cfg", str(tmp / "aequa.json")]) == 0
    return tmp


def _runs(tmp: Path, tag: str, methods: tuple[str, ...]) -> list[str]:
    args = []
    for method in methods:
        args += ["--run", "0", method, str(tmp / f"{tag}_{method}.json"), str(tmp / f"{tag}_{method}.pt")]
    return args


def _mmfl(tmp: Path, experiment: str, methods: tuple[str, ...], alphas: tuple[str, ...]) -> list[str]:
    paths = {kind: [str(tmp / f"mmfl_{m}{kind}") for m in methods] for kind in (".csv", ".npz", ".pt")}
    tasks = ["--datasets", f"digits={tmp / 'digits.npz'}", f"synthetic={tmp / 'synthetic.npz'}"]
    args = ["mmfl", "run", "--experiment", experiment, "--method", *methods, "--alpha", *alphas]
    args += ["--seed-index", *["0"] * len(methods), *tasks, "--output", *paths[".csv"]]
    return [*args, "--allocation", *paths[".npz"], "--checkpoint", *paths[".pt"], "--cfg", str(tmp / "mmfl.json")]


def _commands(tmp: Path) -> dict[str, list[str]]:
    digits = ["--dataset", "digits", "--dataset-file", str(tmp / "digits.npz")]
    return {
        "aequa run (every method)": ["aequa", "run", *digits, "--partition", "qskew0.4x1"]
        + _runs(tmp, "aequa", AEQUA_METHODS)
        + ["--cfg", str(tmp / "aequa.json")],
        "aequa-ext participation": ["aequa-ext", "participation", *digits]
        + _runs(tmp, "participation", ("fedavg_ft", "aequa"))
        + ["--cfg", str(tmp / "aequa.json")],
        "aequa-ext training-time": ["aequa-ext", "training-time", *digits, "--partition", "qskew0.4x1"]
        + ["--standalone", "0", str(tmp / "contributions.json")]
        + _runs(tmp, "training_time", TRAINING_TIME_METHODS)
        + ["--cfg", str(tmp / "aequa.json")],
        "aequa-ext scale": ["aequa-ext", "scale", *digits]
        + _runs(tmp, "scale", ("standalone", "fedavg_ft", "aequa"))
        + ["--cfg", str(tmp / "aequa.json")],
        "mmfl run (fedfair, random, q-FFL)": _mmfl(tmp, "exp1", ("fedfair", "random", "qffl"), ("3.0", "none", "3.0")),
        "mmfl run (round robin)": _mmfl(tmp, "exp2_s6", ("round_robin",), ("none",)),
        "payoff-flows valuate": ["payoff-flows", "valuate", "--dataset", str(tmp / "digits.npz")]
        + ["--coalition", "5", str(tmp / "coalition_5.json"), str(tmp / "coalition_5.pt")]
        + ["--cfg", str(tmp / "payoff_flows.json")],
    }


COMMANDS = list(_commands(Path("x")))


@pytest.fixture
def default_device_meta():
    torch.set_default_device("meta")
    try:
        yield
    finally:
        torch.set_default_device(None)


@pytest.mark.parametrize("name", COMMANDS)
def test_a_round_of_every_training_command_names_its_devices(inputs, name, default_device_meta):
    assert main(_commands(inputs)[name]) == 0


def test_exp6_names_its_devices(inputs, default_device_meta):
    """Exp 6 trains multi-model FL on a recruitment; the recruitment is made before the default device changes."""
    torch.set_default_device(None)
    recruitments = [str(inputs / f"recruit_{m}.json") for m in ("maxmin_fair", "gmmfair")]
    args = ["auctions", "recruit", "--budget", "29", "--mechanisms", "maxmin_fair", "gmmfair", "--seeds", "0", "0"]
    assert main([*args, "--outputs", *recruitments, "--cfg", str(inputs / "auctions.json")]) == 0
    torch.set_default_device("meta")
    tasks = ["--datasets", f"digits={inputs / 'digits.npz'}", f"synthetic={inputs / 'synthetic.npz'}"]
    outputs = [str(inputs / f"exp6_{m}.csv") for m in ("maxmin_fair", "gmmfair")]
    checkpoints = [str(inputs / f"exp6_{m}.pt") for m in ("maxmin_fair", "gmmfair")]
    command = ["auctions", "exp6", "--recruitment", *recruitments, *tasks, "--output", *outputs]
    assert main([*command, "--checkpoint", *checkpoints, "--cfg", str(inputs / "auctions.json")]) == 0


def test_a_tensor_without_a_device_fails_here():
    """The mechanism itself: a tensor made without a device meets one made on the run's device and fails."""
    run_device = torch.ones(3, device="cpu")
    torch.set_default_device("meta")
    try:
        with pytest.raises(RuntimeError, match="device"):
            _ = run_device + torch.as_tensor([1.0, 2.0, 3.0])
    finally:
        torch.set_default_device(None)
