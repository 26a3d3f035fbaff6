"""The GPU check and the operation-count benchmark run on the CPU here, so neither can rot before a GPU is at hand.

``bench/gpu_check.py`` is what a user runs on a GPU node before a cluster submission; ``bench/aequa_step_ops.py``
compares the operations Aequa's training step dispatches with a plain step's (the proxy for GPU time per step).
"""

from __future__ import annotations

import importlib.util
import re
import sys

import numpy as np
import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _bench(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", REPO / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _training_commands() -> set[str]:
    """The `fairshare <group> <command>` of every rule that declares a GPU (`training_resources(...)` or `gpu=GPU`):
    the command line that follows the declaration in the rule file or, for a line built in Python
    (``fairshare {params.commands}``), the command its builder's docstring opens with."""
    rules = {path.name: path.read_text() for path in (REPO / "workflow" / "rules").glob("*.smk")}
    every = "\n".join(rules.values())
    found = set()
    for name, text in rules.items():
        if name == "sensitivity.smk":  # its Aequa reruns are `aequa run` lines, as aequa.smk's
            continue
        for declared in re.finditer(r"^\s+(?:\*\*training_resources\(|gpu=GPU\b)", text, re.M):
            rest = text[declared.end() :]
            command = re.search(r'"fairshare (\{params\.commands\}|[a-z-]+ [a-z0-9-]+)', rest)
            if command[1] == "{params.commands}":
                builder = re.search(r"commands=lambda [^:]*: (\w+)\(", rest)[1]
                found.add(re.search(rf'def {builder}\(.*?"""`([a-z-]+ [a-z0-9-]+)', every, re.S)[1])
            else:
                found.add(command[1])
    return found


def test_the_check_has_a_row_for_every_training_command(tmp_path):
    check = _bench("gpu_check")
    cfg = check.check_config("cpu", tiny=True, rounds=1, n_train=600, n_test=60)
    names = {" ".join(r.argv[:2]) for r in check.rules(cfg, tmp_path, tmp_path / "c.json")}
    expected = _training_commands()
    assert {"aequa run", "mmfl run", "auctions exp6"} <= expected  # the parse finds the rules
    assert expected <= names, expected - names
    models = {
        r.name.split()[2] for r in check.rules(cfg, tmp_path, tmp_path / "c.json") if r.argv[:2] == ["aequa", "run"]
    }
    assert {cfg["aequa"]["models"][d] for d in models} == set(cfg["aequa"]["models"].values()) - {None}


def test_the_check_runs_rules_on_the_cpu_and_reports_each(capsys):
    check = _bench("gpu_check")
    only = ["aequa run mnist", "scale femnist aequa", "fig4 qffl", "payoff-flows"]
    assert check.main(["--device", "cpu", "--tiny", "--rounds", "1", "--only", *only]) == 0
    out = capsys.readouterr().out
    table = out[out.index("rule ") : out.index("bench/engine_throughput.py")]
    rows = [line.split() for line in table.splitlines()[1:] if line.strip()]
    assert len(rows) == 6 + 1 + 1 + 1  # the six Aequa methods on MNIST, Aequa at scale, q-FFL, a valuation
    for row in rows:
        assert "ok" in row, row
        assert row[-4].isdigit() and int(row[-4]) > 0, row  # samples/s of the last round
    assert "client-samples/s" in out[out.index("bench/engine_throughput.py") :]


def test_the_check_reports_a_failing_rule_and_goes_on(tmp_path):
    check = _bench("gpu_check")
    meter = check.Utilisation("cpu")

    def broken(argv):
        raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices")

    result = check.run_rule(check.Rule("aequa run x cgsv", ["aequa", "run"]), broken, "cpu", meter)
    assert not result["ok"] and "same device" in result["error"]
    assert "FAIL" in check.report([result])


def test_a_signal_stops_the_check_rather_than_failing_one_rule():
    """On an H200 `timeout` sent SIGTERM: the CLI ended the rule with status 143 and the check went on to the next."""
    check = _bench("gpu_check")
    result = check.run_rule(
        check.Rule("aequa run sst aequa", ["aequa", "run"]), lambda argv: 143, "cpu", check.Utilisation("cpu")
    )
    assert result["stopped"] == 143 and not result["ok"]
    assert check.run_rule(check.Rule("x", []), lambda argv: 2, "cpu", check.Utilisation("cpu"))["stopped"] == 0


def test_only_keeps_the_rules_a_chosen_rule_reads(tmp_path):
    """The training-time methods read the standalone run of their dataset (on the H200, `--only training-time`
    failed with "aequa_cifar10_standalone.json is malformed")."""
    check = _bench("gpu_check")
    cfg = check.check_config("cpu", tiny=True, rounds=1, n_train=600, n_test=60)
    every = check.rules(cfg, tmp_path, tmp_path / "c.json")
    chosen = [r.name for r in check.select(every, ["training-time"])]
    timing = cfg["aequa"]["training_time"]["datasets"][0]
    assert chosen[0] == f"aequa run {timing} standalone"
    assert len(chosen) > 1 and all("training-time" in name for name in chosen[1:])


def test_multi_model_fl_and_exp6_tasks_fill_their_partitions_at_the_check_sizes():
    """The paper profile's partitions on uniform stand-in labels: every multi-model FL experiment fits the real
    dataset's size the check builds, and Exp 1 did not fit the 20,000 samples the check used to give every dataset."""
    from fairshare.data.partition import PartitionError, mmfl_iid, mmfl_noniid

    check = _bench("gpu_check")
    cfg = check.check_config("cuda", tiny=False, rounds=1, n_train=5_000, n_test=500)  # sized for a GPU
    sizes = check.task_sizes(cfg, tiny=False)
    assert set(cfg["auctions"]["exp6"]["tasks"]) <= set(sizes)

    def partition(experiment, name, n):
        labels = np.random.default_rng(0).integers(0, 47 if name == "emnist" else 10, n)
        rng = np.random.default_rng(1)
        if experiment["partition"] == "iid":
            return mmfl_iid(labels, experiment["clients"], experiment["size_range"], rng)
        return mmfl_noniid(labels, experiment["clients"], experiment["size_range"], experiment["class_ratio"], rng)

    for experiment in cfg["mmfl"]["experiments"]:
        for name in experiment["tasks"]:
            partition(experiment, name, sizes[name])
    exp1 = next(e for e in cfg["mmfl"]["experiments"] if e["name"] == "exp1")
    with pytest.raises(PartitionError, match="ran out"):
        partition(exp1, "mnist", 20_000)


def test_aequa_step_dispatches_about_as_many_operations_as_a_plain_step():
    """Issue 37: at most 1.5x the operations of a plain step at the same widths (the sequential client loop, which
    `auto` runs for per-client widths), counted with the PyTorch profiler."""
    ops = _bench("aequa_step_ops")
    plain, _, _ = ops.per_step(lambda k: ops.plain_ops(k, 4, 8, 0.5, 8), 2)
    aequa, _, _ = ops.per_step(lambda k: ops.aequa_ops(k, 1, 4, 8, 8, "sequential", None), 2)
    assert aequa <= 1.5 * plain, (aequa, plain)
