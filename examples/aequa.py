"""Aequa: one slimmable network trained by all clients, then fair model rewards as sub-network widths.

Four clients hold quantity-skewed shares of scikit-learn's digits (bundled, no download). They train a slimmable MLP
for a few rounds (Algorithm 1 as reconstructed); the server measures the accuracy of every width (the width-accuracy
curve) and gives each client a width whose accuracy is at least its contribution, choosing the widths so that the
clients' gains (reward accuracy minus contribution) are as equal as possible (Sec. 4.2). Here a client's contribution
is its data share mapped onto the curve's range, a stand-in for a contribution-assessment method.

The allocation reads the curve's accuracies, not the widths: a measured curve need not rise with the width (a narrower
sub-network may score a little higher on the test set), and then a client with a higher contribution can receive a
narrower width whose measured accuracy is higher. The example says so when its curve dips.
Run: uv run python examples/aequa.py
"""

from __future__ import annotations

import numpy as np
import torch

from fairshare import seeding
from fairshare.data.datasets import build_dataset
from fairshare.data.partition import quantity_skew
from fairshare.games.aequa_allocation import anneal
from fairshare.learning.aequa import aequa_step, build_slimmable_model, width_accuracy_curve, width_grid
from fairshare.learning.engine import ClientData, TrainSettings
from fairshare.learning.evaluation import to_tensors
from fairshare.learning.rounds import run_rounds
from fairshare.metrics import pearson

CLIENTS, ROUNDS, SEED, P_MIN = 4, 5, 0, 0.25


def train(ds, part) -> tuple[torch.nn.Module, dict]:
    """The slimmable MLP after ``ROUNDS`` rounds of Aequa's federated training."""
    x, y = to_tensors(ds.x_train, ds.y_train)
    clients = [ClientData(x[torch.as_tensor(ix)], y[torch.as_tensor(ix)]) for ix in part.client_indices]
    torch.manual_seed(SEED)
    model = build_slimmable_model("aequa_mlp", ds.input_shape, ds.n_classes)
    step = aequa_step(
        model,
        clients,
        TrainSettings(epochs=1, batch_size=32, lr=0.05, momentum=0.9),
        order_rng=lambda r, i: seeding.generator(SEED, "data_order", r, i),
        width_rng=lambda r, i: seeding.generator(SEED, "sampling", r, i),
        p_min=P_MIN,
    )
    initial = {k: v.detach().clone() for k, v in model.state_dict().items()}
    state, _ = run_rounds(step, initial, ROUNDS, settings="", progress=False)
    return model, state


def main() -> None:
    ds = build_dataset("digits", rng=seeding.generator(SEED, "dataset"))
    part = quantity_skew(ds.y_train, CLIENTS, 0.4, 1, seeding.generator(SEED, "partition"))
    model, state = train(ds, part)
    widths = width_grid(P_MIN, 0.25)
    xt, yt = to_tensors(ds.x_test, ds.y_test)
    curve = width_accuracy_curve(model, state, widths, xt, yt, ds.n_classes)
    print("width-accuracy curve:", ", ".join(f"{w:.2f}: {a:.3f}" for w, a in zip(widths, curve)))
    for k in np.flatnonzero(np.diff(curve) < 0):
        print(
            f"  the curve dips: width {widths[k + 1]:.2f} scores {curve[k + 1]:.3f} < width {widths[k]:.2f}'s "
            f"{curve[k]:.3f}; the allocation ranks models by accuracy, so {widths[k]:.2f} is the better one"
        )
    sizes = np.array([len(ix) for ix in part.client_indices], float)
    contributions = curve.min() + (curve.max() - curve.min()) * sizes / sizes.max()
    alloc = anneal(contributions, curve, seeding.generator(SEED, "game"), iters=5000)
    for i, (n, c, k, g) in enumerate(zip(sizes, contributions, alloc.indices, alloc.gains)):
        print(
            f"client {i}: {int(n):>4} samples, contribution {c:.3f} -> width {widths[k]:.2f}, "
            f"accuracy {curve[k]:.3f} (gain {g:+.3f})"
        )
    print(f"Pearson(contribution, reward accuracy) = {pearson(contributions, alloc.values):.3f}")


if __name__ == "__main__":
    main()
