"""Where a training job's CPU time goes: runs one ``fairshare`` command under cProfile with a CPU-time clock and prints
the breakdown of docs/engine.md (training by method / model, evaluation, allocation, checkpoints, data, start-up,
the rest), each in CPU-seconds and as a share of the job (issue 41, item 2).

    OMP_NUM_THREADS=1 python bench/job_profile.py --out job.prof -- aequa run --dataset digits ... --cfg CFG
    python bench/job_profile.py --read job.prof        # the breakdown of a saved profile

cProfile's own cost inflates the Python-heavy parts a little (the job's CPU time without it is printed too when the
command is run here).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

# (label, file suffix, function names): the cumulative CPU time of those functions, outermost first. Categories
# nest (a method's rounds hold its local training and checkpoints), so they are read as rows of a tree.
CATEGORIES = [
    ("whole job", "cli.py", ("main",)),
    ("  start-up: imports (torch, the package)", "learning/device.py", ("<module>",)),
    ("  rounds (run_rounds), all methods", "learning/rounds.py", ("run_rounds",)),
    ("    local training (engine.local_train)", "learning/engine.py", ("local_train",)),
    ("      model forward: slimmable CNN", "learning/slimmable.py", ("SlimmableCNN.forward",)),
    ("      model forward: slimmable MLP", "learning/slimmable.py", ("SlimmableMLP.forward",)),
    ("      model forward: MNIST-family CNN", "learning/models.py", ("MnistCNN.forward",)),
    ("      model forward: MLP", "learning/models.py", ("MLP.forward",)),
    ("      backward (autograd)", "torch/autograd/__init__.py", ("grad", "backward")),
    ("      SGD update (sgd_step)", "learning/sgd.py", ("sgd_step",)),
    ("    aggregation", "learning/aggregation.py", ("weighted_average", "uniform_average", "masked_average")),
    ("    checkpoints (save_checkpoint + rows log)", "learning/rounds.py", ("_save_round",)),
    ("    progress lines' test accuracy (probe)", "papers/aequa/methods.py", ("<lambda>",)),
    ("  evaluation (predict / evaluate)", "learning/evaluation.py", ("predict", "evaluate")),
    ("    a(p): every width on the test / validation split", "learning/aequa.py", ("width_accuracy_curve",)),
    ("  allocation (simulated annealing)", "games/aequa_allocation.py", ("anneal", "width_reward_allocation")),
    ("  data: load, partition, convert (Aequa prepare)", "papers/aequa/federation.py", ("prepare",)),
    ("  data: build tasks (multi-model FL)", "learning/mmfl.py", ("build_task",)),
]


def _qualname(path: str, line: int, name: str) -> str:
    """``Class.method`` for the forwards (cProfile keys only carry the file, line and function name)."""
    if name != "forward":
        return name
    try:
        with open(path) as f:
            lines = f.read().splitlines()[:line]
    except OSError:
        return name
    for text in reversed(lines):
        if text.startswith("class "):
            return f"{text[6:].split('(')[0].split(':')[0]}.forward"
    return name


def breakdown(stats: pstats.Stats) -> list[tuple[str, float]]:
    """(label, cumulative CPU-seconds) per category; recursive calls counted once (cProfile's cumulative time)."""
    rows = []
    for label, suffix, names in CATEGORIES:
        total = 0.0
        for (path, line, name), (_, _, _, cum, _) in stats.stats.items():
            if path.endswith(suffix) and _qualname(path, line, name) in names:
                total += cum
        rows.append((label, total))
    return rows


def report(stats: pstats.Stats) -> None:
    rows = breakdown(stats)
    whole = rows[0][1] or 1.0
    print(f"{'':58s} {'CPU-s':>8s} {'share':>7s}")
    for label, seconds in rows:
        print(f"{label:58s} {seconds:8.2f} {seconds / whole:7.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write the profile here (with a command after --)")
    parser.add_argument("--read", help="print the breakdown of a saved profile")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.read:
        report(pstats.Stats(args.read))
        return
    from fairshare.cli import main as fairshare

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    profile = cProfile.Profile(time.process_time)
    began = time.process_time()
    profile.runcall(fairshare, command)
    spent = time.process_time() - began
    if args.out:
        profile.dump_stats(args.out)
    report(pstats.Stats(profile))
    print(f"job CPU-seconds under the profiler: {spent:.1f}")


if __name__ == "__main__":
    main()
