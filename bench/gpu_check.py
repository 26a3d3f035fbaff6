"""Before a cluster submission: one run of every training rule of the paper profile on this machine's GPU.

Every training command the paper profile's rules call (``aequa run`` for each Aequa model, one method at a time;
the three Aequa extensions; ``mmfl run``; ``auctions exp6``; ``payoff-flows valuate``) runs once, in this process,
with the paper profile's models, batch sizes and client counts, on stand-in data (torchvision ``FakeData`` and the
other stand-ins of ``config/paper_smoke.yaml``: plumbing, never a result) for ``--rounds`` rounds; then
``bench/engine_throughput.py`` runs. For each rule it prints ``ok`` or the error's last line, the last round's
client-samples per second (the first round carries cuDNN's autotuning), the peak GPU memory and the mean GPU
utilisation (``nvidia-smi``, sampled every 0.2 s; ``n/a`` without it). A crash, a device mismatch or a run that
does not fit the GPU shows here in minutes rather than hours into a cluster job.

Needs only what the training code needs (PyTorch, torchvision, numpy, pandas, scipy, scikit-learn, PyYAML, tqdm,
jsonschema): no Snakemake, no network. From the repository root:

    PYTHONPATH=src python bench/gpu_check.py                    # CUDA, 10-15 minutes on one H200 (Aequa: 8)
    PYTHONPATH=src python bench/gpu_check.py --device cpu --tiny    # every rule on a CPU in a minute (the tests)

``--tiny`` also layers ``config/paper_smoke.yaml`` and shrinks models and data further, to check the plumbing only.
Exit status 1 when any rule fails; a signal (Ctrl-C, a scheduler's SIGTERM, ``timeout``) stops the check with the
table so far and exit status 128 + its number. ``--only`` also runs the rules a chosen rule reads from.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
AEQUA_DATASETS = ("mnist", "svhn", "cifar10", "sst")  # one per Aequa model: 1-conv CNN, 2-conv CNN, ResNet-18, LSTM
AEQUA_PARTITION = "dir0.5"


@dataclass
class Rule:
    """One row of the check: a name, the ``fairshare`` command line, and the rules whose outputs it reads (``--only``
    runs those first)."""

    name: str
    argv: list[str]
    needs: tuple[str, ...] = ()


def check_config(device: str, tiny: bool, rounds: int, n_train: int, n_test: int) -> dict[str, Any]:
    """The paper profile (with the smoke profile over it when ``tiny``), on stand-in data, every training count
    cut to one seed and ``rounds`` rounds (``payoff_flows``: one epoch)."""
    from fairshare.data.stand_in import STAND_IN_DATASETS
    from fairshare.pipeline.config import load_config

    files = [REPO / "config" / "paper.yaml"] + ([REPO / "config" / "paper_smoke.yaml"] if tiny else [])
    stand_in = {"datasets": sorted({*STAND_IN_DATASETS, "femnist"}), "n_train": n_train, "n_test": n_test}
    overrides: dict[str, Any] = {"device": device, "data": {"allow_download": False, "stand_in": stand_in}}
    if tiny:
        overrides["aequa"] = {"resnet_base": 4, "clients": 3, "test_subset": 20}
    cfg = load_config(*files, overrides=overrides)
    for experiment in cfg["mmfl"]["experiments"]:
        experiment.update(rounds=rounds, seeds=1)
    cfg["mmfl"]["seeds"] = 1
    aequa = cfg["aequa"]
    aequa.update(seeds=1, extension_seeds=1)
    aequa["train"]["rounds"] = {name: rounds for name in aequa["train"]["rounds"]}
    aequa["scale"]["rounds"] = rounds
    cfg["auctions"]["exp6"].update(rounds=rounds, seeds=1)
    cfg["payoff_flows"]["epochs"] = 1
    return cfg


def rules(cfg: dict[str, Any], work: Path, cfg_file: Path) -> list[Rule]:
    """The training rules, each with one run (the first experiment of each kind; each Aequa model and method)."""
    from fairshare.papers.aequa.experiment import MAIN_METHODS
    from fairshare.papers.aequa_extensions.experiment import (
        PARTICIPATION_METHODS,
        SCALE_METHODS,
        TRAINING_TIME_METHODS,
    )

    data = work / "data"
    cache = lambda name: str(data / f"{name}.npz")  # noqa: E731
    task_cache = lambda name: str(data / "tasks" / f"{name}.npz")  # noqa: E731  (see task_sizes)
    tail = ["--cfg", str(cfg_file)]

    def run(tag: str, method: str) -> list[str]:
        return ["--run", "0", method, str(work / f"{tag}_{method}.json"), str(work / f"{tag}_{method}.pt")]

    def after_standalone(tag: str, method: str) -> list[str]:
        """A method's run after the standalone run its job must hold (its contributions); the rate is the method's."""
        return (run(tag, "standalone") if method != "standalone" else []) + run(tag, method)

    out = []
    for dataset in AEQUA_DATASETS:
        head = ["aequa", "run", "--dataset", dataset, "--dataset-file", cache(dataset), "--partition", AEQUA_PARTITION]
        out += [
            Rule(f"aequa run {dataset} {m}", head + after_standalone(f"aequa_{dataset}", m) + tail)
            for m in MAIN_METHODS
        ]
    extensions = cfg["aequa"]
    participation = extensions["participation"]["datasets"][-1]
    timing = extensions["training_time"]["datasets"][0]
    timing_partition = extensions["training_time"]["partitions"]["fig3"]
    for m in PARTICIPATION_METHODS:
        head = ["aequa-ext", "participation", "--dataset", participation, "--dataset-file", cache(participation)]
        out.append(Rule(f"aequa-ext participation {participation} {m}", head + run("participation", m) + tail))
    standalone = work / f"aequa_{timing}_standalone.json"
    for m in TRAINING_TIME_METHODS:
        head = ["aequa-ext", "training-time", "--dataset", timing, "--dataset-file", cache(timing)]
        head += ["--partition", timing_partition, "--standalone", "0", str(standalone)]
        needs = (f"aequa run {timing} standalone",)
        out.append(Rule(f"aequa-ext training-time {timing} {m}", head + run("training_time", m) + tail, needs))
    scale = extensions["scale"]["dataset"]
    for m in SCALE_METHODS:
        head = ["aequa-ext", "scale", "--dataset", scale, "--dataset-file", cache(scale)]
        head += ["--writers", str(data / f"{scale}_writers.npz")] if scale == "femnist" else []
        out.append(Rule(f"aequa-ext scale {scale} {m}", head + after_standalone("scale", m) + tail))
    head = ["aequa-ext", "scale-overhead", "--dataset", scale, "--dataset-file", cache(scale)]
    head += ["--writers", str(data / f"{scale}_writers.npz")] if scale == "femnist" else []
    head += ["--output", str(work / "overhead.csv"), "--summary", str(work / "overhead.md")]
    out.append(Rule(f"aequa-ext scale-overhead {scale}", head + ["--checkpoint", str(work / "overhead.pt"), *tail]))
    by_method = {}
    for experiment in cfg["mmfl"]["experiments"]:
        for method in experiment["methods"]:
            by_method.setdefault(method, experiment)
    for method, experiment in by_method.items():
        tasks = [f"{t}={task_cache(t)}" for t in dict.fromkeys(experiment["tasks"])]
        alpha = "none" if method in ("random", "round_robin") else "3.0"
        prefix = str(work / f"mmfl_{experiment['name']}_{method}")
        argv = ["mmfl", "run", "--experiment", experiment["name"], "--method", method, "--alpha", alpha]
        argv += ["--seed-index", "0", "--datasets", *tasks, "--output", f"{prefix}.csv"]
        argv += ["--allocation", f"{prefix}.npz", "--checkpoint", f"{prefix}.pt", *tail]
        out.append(Rule(f"mmfl run {experiment['name']} {method}", argv))
    exp6 = cfg["auctions"]["exp6"]
    mechanism = exp6["mechanisms"][0]
    recruitment = str(work / "recruitment.json")
    tasks = [f"{t}={task_cache(t)}" for t in exp6["tasks"]]
    argv = ["auctions", "exp6", "--recruitment", recruitment, "--datasets", *tasks]
    argv += ["--output", str(work / "exp6.csv"), "--checkpoint", str(work / "exp6.pt"), *tail]
    out.append(Rule(f"auctions exp6 {mechanism}", argv))
    payoff = cfg["payoff_flows"]["dataset"]
    coalition = str(2 ** len(cfg["payoff_flows"].get("players", [0] * 4)) - 1)
    argv = ["payoff-flows", "valuate", "--dataset", cache(payoff), "--coalition", coalition]
    out.append(Rule(f"payoff-flows valuate {payoff}", argv + [str(work / "v.json"), str(work / "v.pt"), *tail]))
    return out


def task_sizes(cfg: dict[str, Any], tiny: bool) -> dict[str, int]:
    """Stand-in training samples of each multi-model FL and Exp 6 task: the real dataset's (``resources.DATASETS``).
    Their partitions give up to 160 clients 150-600 samples each, some from a few classes only, which the Aequa
    rules' stand-in size cannot fill (on an H200, at 5,000 and at 20,000 samples: "class 7 ran out while filling a
    client of 180 samples"); with ``tiny`` the smoke profile's client counts fit the common size."""
    from fairshare.pipeline.resources import DATASETS

    tasks = {t for e in cfg["mmfl"]["experiments"] for t in e["tasks"]} | set(cfg["auctions"]["exp6"]["tasks"])
    common = cfg["data"]["stand_in"]["n_train"]
    return {name: common if tiny else DATASETS[name][0] for name in sorted(tasks)}


def prepare(
    cfg: dict[str, Any], work: Path, cfg_file: Path, call: Callable[[list[str]], int], tiny: bool = False
) -> None:
    """Stand-in dataset caches (the tasks' at :func:`task_sizes`) and Exp 6's recruitment."""
    data = work / "data"
    (data / "tasks").mkdir(parents=True, exist_ok=True)
    tail = ["--cfg", str(cfg_file)]
    needed = {*AEQUA_DATASETS, cfg["payoff_flows"]["dataset"]}
    needed |= set(cfg["aequa"]["participation"]["datasets"]) | set(cfg["aequa"]["training_time"]["datasets"])
    for name in sorted(needed):
        _must(call(["data", "build", name, "--output", str(data / f"{name}.npz"), *tail]), f"data build {name}")
    for name, size in task_sizes(cfg, tiny).items():
        sized = json.loads(json.dumps(cfg))
        sized["data"]["stand_in"]["n_train"] = size
        sized_file = work / f"config_{name}.json"
        sized_file.write_text(json.dumps(sized))
        built = call(["data", "build", name, "--output", str(data / "tasks" / f"{name}.npz"), "--cfg", str(sized_file)])
        _must(built, f"data build {name} ({size} samples)")
    scale = cfg["aequa"]["scale"]["dataset"]
    if scale == "femnist":
        leaf = ["--leaf-dir", str(work / "leaf"), "--output", str(data / "femnist.npz")]
        _must(call(["aequa-ext", "femnist-data", *leaf, "--writers", str(data / "femnist_writers.npz"), *tail]), scale)
    exp6 = cfg["auctions"]["exp6"]
    recruit = ["auctions", "recruit", "--budget", str(exp6.get("budget", 29)), "--mechanisms", exp6["mechanisms"][0]]
    _must(call([*recruit, "--seeds", "0", "--outputs", str(work / "recruitment.json"), *tail]), "auctions recruit")


def select(every: Sequence[Rule], only: Sequence[str]) -> list[Rule]:
    """The rules whose names contain one of ``only``, and the rules they read from, in the check's order."""
    wanted = {r.name for r in every if any(text in r.name for text in only)}
    wanted |= {need for r in every if r.name in wanted for need in r.needs}
    return [r for r in every if r.name in wanted]


def _must(status: int, what: str) -> None:
    if status != 0:
        raise SystemExit(f"gpu_check: preparing the inputs failed at {what} (status {status})")


class Utilisation:
    """Mean GPU utilisation over a block, sampled from ``nvidia-smi`` in a thread (None without a GPU or the tool)."""

    def __init__(self, device: str):
        self.samples: list[float] = []
        self.enabled = device.startswith("cuda") and shutil.which("nvidia-smi") is not None
        self._stop = threading.Event()

    def _sample(self) -> None:
        query = ["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits", "-i", "0"]
        while not self._stop.wait(0.2):
            try:
                value = subprocess.run(query, capture_output=True, text=True, timeout=5).stdout.split()
                self.samples.append(float(value[0]))
            except (OSError, subprocess.SubprocessError, ValueError, IndexError):
                return

    @contextlib.contextmanager
    def measure(self) -> Iterator[None]:
        self.samples, thread = [], None
        if self.enabled:
            self._stop.clear()
            thread = threading.Thread(target=self._sample, daemon=True)
            thread.start()
        try:
            yield
        finally:
            if thread is not None:
                self._stop.set()
                thread.join()

    def mean(self) -> float | None:
        return sum(self.samples) / len(self.samples) if self.samples else None


RATE = re.compile(r"(\d+) samples/s")
SIGNALLED = 128  # the CLI exits with 128 + the signal's number when SIGTERM or SIGINT stopped it


def run_rule(rule: Rule, call: Callable[[list[str]], int], device: str, meter: Utilisation) -> dict[str, Any]:
    """Run one rule in this process; its result: status, error, samples/s, peak memory, utilisation, seconds."""
    import torch

    cuda = device.startswith("cuda")
    if cuda:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    captured = io.StringIO()
    start = time.perf_counter()
    error, status = "", 0
    with meter.measure(), contextlib.redirect_stderr(captured):
        try:
            status = call(rule.argv)
            if status != 0:
                error = f"exit status {status}"
        except BaseException as exc:  # noqa: BLE001 (a check reports every failure and goes on)
            error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1] if str(exc).strip() else ''}"
    if cuda:
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    text = captured.getvalue()
    if error and not error.startswith(("RuntimeError", "ValueError")):
        lines = [line for line in text.splitlines() if line.strip()]
        error = f"{error} ({lines[-1].strip()})" if lines else error
    rates = RATE.findall(text)
    return {
        "rule": rule.name,
        "ok": not error,
        "error": error,
        "samples_per_s": int(rates[-1]) if rates else None,
        "peak_gib": torch.cuda.max_memory_allocated() / 2**30 if cuda else None,
        "utilisation": meter.mean(),
        "seconds": seconds,
        "stopped": status if status > SIGNALLED else 0,
    }


def _cell(value: Any, fmt: str) -> str:
    return "n/a" if value is None else format(value, fmt)


def report(results: Sequence[dict[str, Any]]) -> str:
    """The per-rule table the check prints."""
    lines = [f"{'rule':48s} {'status':6s} {'samples/s':>10s} {'peak GiB':>9s} {'GPU %':>6s} {'seconds':>8s}"]
    for r in results:
        lines.append(
            f"{r['rule']:48s} {'ok' if r['ok'] else 'FAIL':6s} {_cell(r['samples_per_s'], 'd'):>10s} "
            f"{_cell(r['peak_gib'], '.2f'):>9s} {_cell(r['utilisation'], '.0f'):>6s} {r['seconds']:8.1f}"
        )
        if not r["ok"]:
            lines.append(f"    {r['error']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", help="cuda (default), cuda:N or cpu")
    parser.add_argument("--tiny", action="store_true", help="smoke sizes (the test suite's CPU check)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds per run (the last one's rate is reported)")
    parser.add_argument(
        "--n-train",
        type=int,
        default=None,
        help="stand-in training samples per Aequa dataset (5,000; multi-model FL's tasks: the real size)",
    )
    parser.add_argument("--only", nargs="+", default=[""], help="run only the rules whose names contain one of these")
    parser.add_argument("--no-throughput", action="store_true", help="skip bench/engine_throughput.py")
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args(argv)
    import torch

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("gpu_check: no CUDA device here; run it on a GPU node, or use --device cpu --tiny", file=sys.stderr)
        return 2
    from fairshare.cli import main as fairshare

    n_train = args.n_train or (600 if args.tiny else 5_000)
    cfg = check_config(args.device, args.tiny, args.rounds, n_train, max(40, n_train // 10))
    meter = Utilisation(args.device)
    with tempfile.TemporaryDirectory(prefix="gpu_check_") as folder:
        work = Path(folder)
        cfg_file = work / "config.json"
        cfg_file.write_text(json.dumps(cfg))
        with contextlib.redirect_stderr(io.StringIO()):
            prepare(cfg, work, cfg_file, fairshare, args.tiny)
        chosen = select(rules(cfg, work, cfg_file), args.only)
        results = []
        for rule in chosen:
            results.append(run_rule(rule, fairshare, args.device, meter))
            print("\n".join(report(results[-1:]).splitlines()[1:]), flush=True)
            if results[-1]["stopped"]:  # a signal stops the check, not just this rule
                print(f"\n{report(results)}\ngpu_check: stopped by a signal", file=sys.stderr)
                return results[-1]["stopped"]
    print()
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    if not args.no_throughput:
        throughput = ["--device", args.device, "--clients", *(["2", "--repeats", "1"] if args.tiny else ["20", "120"])]
        print("\nbench/engine_throughput.py", " ".join(throughput), flush=True)
        sys.path.insert(0, str(REPO / "bench"))
        import engine_throughput

        engine_throughput.main(throughput)
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
