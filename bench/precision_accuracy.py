"""Final accuracy of bf16 training beside fp32 on the default profile, against the seed noise (issue 21).

Reads two result folders of the same config, one trained in fp32 (the default) and one with ``precision: bf16`` in
the ``mmfl`` and ``aequa`` blocks, and compares every final accuracy the two folders hold:

- multi-model FL: each task's accuracy in the last round of every (experiment, method, alpha, seed) run;
- Aequa: each (dataset, partition, method, seed)'s reported ``accuracy`` metric;
- auctions Exp 6: the minimum accuracy across tasks in the last round of every (mechanism, seed).

For each, it prints the mean and largest |bf16 - fp32| over runs beside the seed noise: the mean |seed a - seed b|
of fp32 runs of the same setting. bf16 "matches within seed noise" when the mean precision gap is below the mean
seed gap.

Produce the bf16 folder from a copy of the workflow (so that no tracked file changes):

    cp -r Snakefile workflow config profiles data /tmp/bf16 && cd /tmp/bf16
    printf 'mmfl: {precision: bf16}\\naequa: {precision: bf16}\\n' > bf16.yaml
    snakemake results/mmfl/summary.csv results/aequa/summary.csv results/auctions/exp6_summary.csv \\
        --cores all --configfile config/config.yaml bf16.yaml

Usage: python bench/precision_accuracy.py FP32_RESULTS BF16_RESULTS   (each a results/ folder)
"""

from __future__ import annotations

import argparse
from itertools import combinations
from pathlib import Path

import pandas as pd


def mmfl_final(results: Path) -> pd.DataFrame:
    s = pd.read_csv(results / "mmfl" / "summary.csv")
    s = s[s.metric == "accuracy"]
    last = s.groupby(["experiment", "method", "alpha", "seed"], dropna=False)["round"].transform("max")
    final = s[s["round"] == last]
    alpha = final.alpha.map(lambda a: "none" if pd.isna(a) else f"{a:g}")
    setting = final.experiment + "/" + final.method + "/" + alpha + "/task" + final.task.map(str)
    return final.assign(setting=setting)[["setting", "seed", "value"]]


def aequa_final(results: Path) -> pd.DataFrame:
    s = pd.read_csv(results / "aequa" / "summary.csv")
    s = s[s.metric == "accuracy"]
    return s.assign(setting=s.experiment + "/" + s.method)[["setting", "seed", "value"]]


def exp6_final(results: Path) -> pd.DataFrame:
    s = pd.read_csv(results / "auctions" / "exp6_summary.csv")
    final = s[s["round"] == s.groupby(["method", "seed"])["round"].transform("max")]
    return final.rename(columns={"method": "setting", "min_acc": "value"})[["setting", "seed", "value"]]


def seed_gaps(fp32: pd.DataFrame) -> pd.Series:
    """|seed a - seed b| of fp32 for every setting and pair of its seeds."""
    gaps = []
    for _, group in fp32.groupby("setting"):
        values = group.sort_values("seed").value.to_numpy()
        gaps += [abs(a - b) for a, b in combinations(values, 2)]
    return pd.Series(gaps, dtype=float)


def compare(name: str, fp32: pd.DataFrame, bf16: pd.DataFrame) -> bool:
    both = fp32.merge(bf16, on=["setting", "seed"], suffixes=("_fp32", "_bf16"))
    if both.empty:
        raise SystemExit(f"{name}: the two folders share no run")
    gap = (both.value_bf16 - both.value_fp32).abs()
    noise = seed_gaps(fp32)
    within = bool(gap.mean() < noise.mean()) if len(noise) else False
    print(
        f"{name:<16} {len(both):>4} final accuracies  |bf16-fp32| mean {gap.mean():.4f} max {gap.max():.4f}  "
        f"bf16-fp32 mean {(both.value_bf16 - both.value_fp32).mean():+.4f}  "
        f"seed noise mean {noise.mean():.4f} ({len(noise)} pairs)  within noise: {'yes' if within else 'no'}"
    )
    return within


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fp32", type=Path, help="results/ folder of the fp32 run")
    parser.add_argument("bf16", type=Path, help="results/ folder of the bf16 run")
    args = parser.parse_args()
    verdicts = [
        compare(name, read(args.fp32), read(args.bf16))
        for name, read in (("multi-model FL", mmfl_final), ("Aequa", aequa_final), ("auctions Exp 6", exp6_final))
    ]
    print(f"bf16 final accuracy within the seed noise of fp32 everywhere: {'yes' if all(verdicts) else 'no'}")


if __name__ == "__main__":
    main()
