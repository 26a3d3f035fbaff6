"""One round of local training of the multi-model FL CNN, sequential vs batched executor, side by side.

Each client holds 150-250 MNIST-shaped samples (random pixels and labels: throughput does not depend on content) and
trains 1 local epoch with batch 32 and SGD(0.01, momentum 0.9, weight decay 1e-3), the paper's local settings.
Both executors first run once untimed (one-time initialisation), then alternate ``--repeats`` times; the best time of
each is reported (on a shared machine, other jobs only ever slow a run down). Prints client-samples per second for
each executor and client count, and last the ratio at the last client count.

Usage: python bench/engine_throughput.py [--clients 20 120] [--device auto|cpu|cuda] [--epochs 1] [--repeats 2]
                                         [--chunk N] [--precision fp32|bf16] [--amp] [--vectorize auto|on|off]
                                         [--threads N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from fairshare.learning.device import resolve_device
from fairshare.learning.engine import ClientData, TrainSettings, local_train
from fairshare.learning.models import build_model


def setup(
    device: torch.device, epochs: int = 1, precision: str = "fp32"
) -> tuple[torch.nn.Module, dict, TrainSettings]:
    """The multi-model FL CNN on ``device`` (torch seeded 0), its start state, and the paper's local settings."""
    torch.manual_seed(0)
    model = build_model("mnist_cnn", (1, 28, 28), 10).to(device)
    params = {k: v.clone() for k, v in model.state_dict().items()}
    settings = TrainSettings(
        epochs=epochs, batch_size=32, lr=0.01, momentum=0.9, weight_decay=1e-3, precision=precision
    )
    return model, params, settings


def make_clients(
    count: int, rng: np.random.Generator, device: torch.device, epochs: int = 1
) -> tuple[list[ClientData], int]:
    """``count`` clients of 150-250 random MNIST-shaped samples each, and the client-samples one round trains."""
    sizes = rng.integers(150, 251, size=count)
    clients = [
        ClientData(torch.randn(int(n), 1, 28, 28, device=device), torch.randint(0, 10, (int(n),), device=device))
        for n in sizes
    ]
    return clients, int(sizes.sum()) * epochs


def one_round(model, params, clients, settings, executor: str, device, chunk, amp, vectorize=None) -> float:
    gens = [np.random.default_rng(i) for i in range(len(clients))]
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    local_train(
        model,
        params,
        clients,
        settings,
        generators=gens,
        executor=executor,
        chunk=chunk,
        amp=amp,
        vectorize=vectorize if executor == "batched" else None,
    )
    if device.type == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[20, 120])
    parser.add_argument("--device", default="auto")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=None, help="clients stacked at once by the batched executor")
    parser.add_argument("--precision", choices=["fp32", "bf16"], default="fp32", help="TrainSettings.precision")
    parser.add_argument("--amp", action="store_true", help="bfloat16 autocast (CUDA only)")
    parser.add_argument(
        "--vectorize",
        choices=["auto", "on", "off"],
        default="auto",
        help="batched executor's gradient path: auto (vmap where it pays, else the plain client loop), "
        "on (vmap forced), off (client by client on the stacked state)",
    )
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads (default: torch's)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    model, params, settings = setup(device, args.epochs, args.precision)
    rng = np.random.default_rng(0)
    threads = f", {torch.get_num_threads()} threads" if device.type == "cpu" else ""
    vectorize = {"auto": None, "on": True, "off": False}[args.vectorize]
    ratio = float("nan")
    for k in args.clients:
        clients, samples = make_clients(k, rng, device, args.epochs)
        for executor in ("sequential", "batched"):  # untimed: kernel selection, vmap and optimizer initialisation
            one_round(model, params, clients[:2], settings, executor, device, args.chunk, args.amp, vectorize)
        best = {"sequential": float("inf"), "batched": float("inf")}
        for _ in range(args.repeats):
            for executor in best:
                best[executor] = min(
                    best[executor],
                    one_round(model, params, clients, settings, executor, device, args.chunk, args.amp, vectorize),
                )
        ratio = best["sequential"] / best["batched"]
        print(
            f"{k:4d} clients on {device}{threads}, {args.precision}: "
            f"sequential {samples / best['sequential']:9.0f} client-samples/s   "
            f"batched {samples / best['batched']:9.0f} client-samples/s   ({ratio:.2f}x)",
            flush=True,
        )
    print(f"batched/sequential: {ratio:.2f}x")


if __name__ == "__main__":
    main()
