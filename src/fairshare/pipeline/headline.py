"""Headline numbers of the training papers for `dvc metrics show`, read from the tidy results the pipeline wrote.

Nothing here computes a result: each function picks the final round of a tidy table and averages over seeds (and,
for Aequa, over datasets and partitions), so a user comparing two runs with `dvc metrics diff` sees accuracies and
correlations besides the scorecard counts. One small JSON file per paper, nested keys (DVC flattens them with dots).
"""

from __future__ import annotations

import pandas as pd

__all__ = ["PAPERS", "mmfl_headline", "aequa_headline", "auctions_headline", "headline"]

DIGITS = 4  # rounded: the files stay small and a difference in the 5th decimal is noise for a headline


def _final_round_mean(frame: pd.DataFrame, keys: list[str], value: str) -> pd.Series:
    """Mean over seeds of ``value`` in the last round of each group of ``keys``."""
    last = frame.groupby(keys, dropna=False)["round"].transform("max")
    return frame[frame["round"] == last].groupby(keys, dropna=False)[value].mean().round(DIGITS)


def _method_names(frame: pd.DataFrame) -> pd.Series:
    """The method, with its alpha when the experiment runs the method with several alphas (Exp 4)."""
    alphas = frame.groupby(["experiment", "method"])["alpha"].transform("nunique")
    suffix = frame["alpha"].map(lambda a: f"_alpha{a:g}" if pd.notna(a) else "")
    return frame["method"].where(alphas <= 1, frame["method"] + suffix)


def mmfl_headline(across_tasks: pd.DataFrame) -> dict:
    """Multi-model FL: final minimum accuracy across tasks per experiment and method (mean over seeds)."""
    frame = across_tasks.assign(name=_method_names(across_tasks))
    means = _final_round_mean(frame, ["experiment", "name"], "min_acc")
    out: dict[str, dict[str, float]] = {}
    for (experiment, name), value in means.items():
        out.setdefault(experiment, {})[name] = float(value)
    return {"final_min_accuracy": out}


def aequa_headline(summary: pd.DataFrame) -> dict:
    """Aequa: Pearson correlation of reward and contribution per method, mean over datasets, partitions and seeds."""
    pearson = summary[summary["metric"] == "pearson"]
    means = pearson.groupby("method")["value"].mean().round(DIGITS)
    return {"mean_pearson": {method: float(value) for method, value in means.items()}}


def auctions_headline(exp6_summary: pd.DataFrame) -> dict:
    """Recruitment auctions, Exp 6: final minimum accuracy across tasks per mechanism (mean over seeds)."""
    means = _final_round_mean(exp6_summary, ["method"], "min_acc")
    return {"exp6_final_min_accuracy": {method: float(value) for method, value in means.items()}}


PAPERS = {"mmfl": mmfl_headline, "aequa": aequa_headline, "auctions": auctions_headline}


def headline(paper: str, csv_path: str) -> dict:
    """The headline metrics of ``paper`` from its tidy CSV."""
    return PAPERS[paper](pd.read_csv(csv_path))
