"""One round of local training of the multi-model FL CNN, sequential vs batched executor, side by side.

Clients hold 150-250 MNIST-shaped samples (random pixels: throughput does not depend on content), batch 32,
1 local epoch, SGD(0.01, momentum 0.9, wd 1e-3). Prints client-samples per second for each executor and, last,
the ratio. Usage: python bench/engine_throughput.py [--clients 20 120] [--device auto] [--epochs 1]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from fairshare.learning.engine import ClientData, TrainSettings, local_train, resolve_device
from fairshare.learning.models import build_model


def one_round(model, params, clients, settings, executor: str, device) -> float:
    gens = [np.random.default_rng(i) for i in range(len(clients))]
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    local_train(model, params, clients, settings, generators=gens, executor=executor)
    if device.type == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[20, 120])
    parser.add_argument("--device", default="auto")
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()
    device = resolve_device(args.device)
    torch.manual_seed(0)
    model = build_model("mnist_cnn", (1, 28, 28), 10).to(device)
    params = {k: v.clone() for k, v in model.state_dict().items()}
    settings = TrainSettings(epochs=args.epochs, batch_size=32, lr=0.01, momentum=0.9, weight_decay=1e-3)
    rng = np.random.default_rng(0)
    ratio = float("nan")
    for k in args.clients:
        sizes = rng.integers(150, 251, size=k)
        clients = [ClientData(torch.randn(int(n), 1, 28, 28, device=device), torch.randint(0, 10, (int(n),), device=device)) for n in sizes]
        samples = int(sizes.sum()) * args.epochs
        one_round(model, params, clients[:2], settings, "batched", device)  # warm-up (vmap tracing, kernels)
        t_seq = one_round(model, params, clients, settings, "sequential", device)
        t_bat = one_round(model, params, clients, settings, "batched", device)
        ratio = t_seq / t_bat
        print(f"{k:4d} clients on {device}: sequential {samples / t_seq:9.0f} client-samples/s   batched {samples / t_bat:9.0f} client-samples/s   ({ratio:.2f}x)")
    print(f"batched/sequential: {ratio:.2f}x")


if __name__ == "__main__":
    main()
