"""Shared figure pieces: whole-number round ticks and Pearson labels that say why a correlation is missing."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from fairshare.plotting import pearson_label, round_axis  # noqa: E402


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
