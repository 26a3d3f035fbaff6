"""Multi-model FL figures speak the paper's words: panel titles name the paper's experiment and what its panels vary,
task names drop the internal position where it is unambiguous, and every alpha of a sweep gets its own colour."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from fairshare.papers.mmfl import figures  # noqa: E402
from fairshare.papers.mmfl.experiment import Experiment  # noqa: E402
from fairshare.papers.mmfl.figures import _series, experiment_titles, task_titles  # noqa: E402


def _experiment(name: str, reproduces: str | None, tasks: int = 3, clients: int = 10) -> Experiment:
    return Experiment(
        name=name,
        reproduces=reproduces,
        tasks=("digits",) * tasks,
        clients=clients,
        active_rate=1.0,
        size_range=(20, 30),
        partition="iid",
        class_ratio=0.5,
        rounds=3,
        methods=("fedfair",),
        alphas=(3.0,),
        seeds=1,
    )


def test_titles_name_the_paper_experiment_and_what_it_varies():
    titles = experiment_titles(
        [
            _experiment("exp1", "exp1"),
            _experiment("exp2_s6", "exp2", tasks=6),
            _experiment("exp3_k40", "exp3", clients=40),
            _experiment("fig4", "fig4", tasks=3),
            _experiment("extra", None),
        ]
    )
    assert titles == {
        "exp1": "Exp. 1",
        "exp2_s6": "Exp. 2, S = 6 tasks",
        "exp3_k40": "Exp. 3, K = 40 clients",
        "fig4": "Fig. 4, S = 3 tasks",
        "extra": "extra",
    }


def test_entries_with_the_same_title_are_told_apart_by_their_name():
    titles = experiment_titles([_experiment("exp1", "exp1"), _experiment("exp1_again", "exp1")])
    assert titles == {"exp1": "Exp. 1 (exp1)", "exp1_again": "Exp. 1 (exp1_again)"}


def test_task_names_keep_a_number_only_where_a_dataset_repeats():
    assert task_titles(["digits", "synthetic", "digits"]) == ["digits (task 1)", "synthetic", "digits (task 3)"]


def test_every_alpha_of_a_sweep_gets_a_distinct_colour_and_label():
    alphas = [1, 2, 3, 4, 6, 10, 15, 20]
    rows = [("random", np.nan)] + [("fedfair", a) for a in alphas]
    frame = pd.DataFrame([{"method": m, "alpha": a, "seed": 0, "round": 1, "v": 0.5} for m, a in rows])
    series = _series(frame)
    labels = [label for label, _, _ in series]
    colours = [tuple(np.round(matplotlib.colors.to_rgba(c), 3)) for _, _, c in series]
    assert labels == ["Random"] + [f"FedFairMMFL, α = {a}" for a in alphas]
    assert len(set(colours)) == len(series)


def test_allocation_map_panels_and_legend_use_the_papers_words(monkeypatch):
    drawn = []
    monkeypatch.setattr(figures, "save_figure", lambda fig, stem: drawn.append(fig))
    maps = [("fedfair", 1.0, np.array([[0, 0, 1], [1, 1, 0]])), ("random", None, np.array([[0, 1, -1], [1, 0, 0]]))]
    figures.allocation_maps(maps, ["digits", "synthetic"], "Exp. 4", "unused")
    (fig,) = drawn
    assert [t.get_text() for t in fig.legends[0].texts] == ["digits", "synthetic", "not active this round"]
    assert [ax.get_title() for ax in fig.axes[:2]] == ["(a) Random", "(b) FedFairMMFL, α = 1"]
    lo, hi = fig.axes[0].get_xlim()
    assert [t for t in fig.axes[0].get_xticks() if lo <= t <= hi] == [1, 2, 3]  # rounds 1-3, whole numbers


def _accuracy(series: list[tuple[str, str, float]], rounds: int = 5, seeds: int = 3, tasks: int = 2) -> pd.DataFrame:
    """Tidy per-task accuracy of (experiment, method, alpha) series: rising curves with a seed-to-seed spread."""
    rng = np.random.default_rng(1)
    return pd.DataFrame(
        [
            {
                "experiment": e,
                "method": m,
                "alpha": a,
                "seed": s,
                "round": r,
                "task": t,
                "accuracy": r / rounds - rng.uniform(0, 0.2),
            }
            for e, m, a in series
            for s in range(seeds)
            for r in range(1, rounds + 1)
            for t in range(tasks)
        ]
    )


def _drawn(monkeypatch) -> list:
    drawn = []
    monkeypatch.setattr(figures, "save_figure", lambda fig, stem: drawn.append(fig))
    return drawn


def test_min_accuracy_names_q_ffl_labels_every_row_and_splits_the_alpha_sweep(monkeypatch):
    """The legend spells q-FFL; the first panel of every row has a y label; a sweep's curves carry no bands (eight
    overlapping bands were one blob) and its spread over seeds is in a last-round panel against alpha."""
    drawn = _drawn(monkeypatch)
    nan = float("nan")
    acc = _accuracy(
        [("fig4", "fedfair", 3.0), ("fig4", "qffl", 3.0), ("exp4", "random", nan), ("exp4", "round_robin", nan)]
        + [("exp4", "fedfair", a) for a in (1.0, 2.0, 3.0, 4.0, 6.0)]
    )
    figures.min_accuracy_curves(acc, {"fig4": "Fig. 4", "exp4": "Exp. 4"}, "unused")
    (fig,) = drawn
    labels = [t.get_text() for t in fig.legends[0].texts]
    assert "q-FFL" in labels and not any("Fel" in label for label in labels)
    fig4, sweep_curves, sweep_last = fig.axes[:3]
    assert fig4.get_ylabel() and len(fig4.collections) == 2  # one band per method
    assert not sweep_curves.collections  # means only
    assert sweep_last.get_xlabel() == "α of FedFairMMFL"
    assert len(sweep_last.containers) == 5  # one min-max bar per alpha
    styles = {(str(line.get_linestyle()), line.get_marker()) for line in fig4.lines}
    assert len(styles) == 2  # FedFairMMFL and q-FFL differ in line style and marker, not only in colour


def test_per_task_panels_keep_each_method_apart_by_style(monkeypatch):
    drawn = _drawn(monkeypatch)
    nan = float("nan")
    acc = _accuracy([("exp1", "fedfair", 3.0), ("exp1", "random", nan), ("exp1", "round_robin", nan)])
    figures.per_task_curves(acc, ["digits", "synthetic"], "Exp. 1", "unused")
    (fig,) = drawn
    first = fig.axes[0]
    assert first.get_ylabel() == "test accuracy"
    assert len({(str(line.get_linestyle()), line.get_marker()) for line in first.lines}) == 3
    assert all(band.get_alpha() <= 0.15 for band in first.collections)
    assert [t.get_text() for t in fig.legends[0].texts] == ["FedFairMMFL", "Random", "Round Robin"]
