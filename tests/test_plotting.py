"""Shared figure pieces: whole-number round ticks, Pearson labels that say why a correlation is missing, seed bands
light enough to see through with sparse markers, and series styles that tell curves apart."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from fairshare.plotting import (  # noqa: E402
    BAND_ALPHA,
    LINESTYLES,
    MARKERS,
    pearson_label,
    round_axis,
    seed_band,
    series_style,
)


def test_round_axis_ticks_are_whole_numbers():
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [0.1, 0.2, 0.3])
    round_axis(ax)
    fig.canvas.draw()
    ticks = [t for t in ax.get_xticks() if 1 <= t <= 3]
    plt.close(fig)
    assert ticks == [1, 2, 3]
    assert ax.get_xlabel() == "round"


def test_pearson_label_names_the_constant_vector_instead_of_nan():
    assert pearson_label(0.934) == "ρ = 0.93"
    assert pearson_label(float("nan")) == "ρ undefined (all rewards equal)"
    assert pearson_label(float("nan"), "all contributions equal") == "ρ undefined (all contributions equal)"
    assert "nan" not in pearson_label(float("nan"))


def _rounds(n_rounds: int = 40, seeds: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        [
            {"seed": s, "round": r, "v": r / n_rounds + rng.normal(0, 0.05)}
            for s in range(seeds)
            for r in range(1, n_rounds + 1)
        ]
    )


def test_seed_band_marks_a_few_points_and_draws_a_light_band():
    """40 rounds with a marker must not give 40 markers (a 6-series panel became spaghetti), and the band is light."""
    fig, ax = plt.subplots()
    seed_band(ax, _rounds(), "round", "v", color="tab:red", label="a", marker="o", markers=5)
    (line,) = ax.lines
    start, step = line.get_markevery()  # markers at start, start + step, ...
    assert len(range(start, 40, step)) <= 6
    (band,) = ax.collections
    assert band.get_alpha() == BAND_ALPHA <= 0.15
    plt.close(fig)


def test_seed_band_without_band_draws_only_the_mean():
    fig, ax = plt.subplots()
    seed_band(ax, _rounds(), "round", "v", color="tab:red", label="a", band=False)
    assert len(ax.lines) == 1 and not ax.collections
    plt.close(fig)


def test_series_styles_differ_in_line_style_and_marker():
    styles = [series_style(k) for k in range(len(MARKERS))]
    assert len({str(s["ls"]) for s in styles[: len(LINESTYLES)]}) == len(LINESTYLES)
    assert len({s["marker"] for s in styles}) == len(MARKERS)
