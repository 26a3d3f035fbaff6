"""Server-side averaging of client states: weighted by data size, uniform, and masked per coordinate.

Every function takes a list of state dicts (parameters and buffers) and returns a new state dict with the dtypes and
devices of the inputs. Sums accumulate in float64, one tensor at a time, so averaging many large models needs the
memory of one model, not of all of them. Integer entries (batch norm's ``num_batches_tracked``) are averaged and
rounded to the nearest integer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch

__all__ = ["State", "weighted_average", "uniform_average", "masked_average"]

State = Mapping[str, torch.Tensor]


def _cast(total: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    return total.to(like.dtype) if like.is_floating_point() or like.is_complex() else total.round().to(like.dtype)


def weighted_average(states: Sequence[State], weights: Sequence[float]) -> dict[str, torch.Tensor]:
    """sum_k w_k state_k / sum_k w_k for every entry (FedAvg with w_k = n_k, the client's sample count;
    Eq. 6 of the multi-model FL paper)."""
    if not states:
        raise ValueError("nothing to average")
    w = [float(x) for x in weights]
    if len(w) != len(states) or any(x < 0 for x in w) or sum(w) <= 0:
        raise ValueError("need one non-negative weight per state, not all zero")
    total_w = sum(w)
    out = {}
    for key, first in states[0].items():
        acc = torch.zeros(first.shape, dtype=torch.float64, device=first.device)
        for s, wk in zip(states, w):
            if wk:
                acc.add_(s[key].to(torch.float64), alpha=wk / total_w)
        out[key] = _cast(acc, first)
    return out


def uniform_average(states: Sequence[State]) -> dict[str, torch.Tensor]:
    """The plain mean of the states (1/|S| weights: the random and round-robin baselines' aggregation)."""
    return weighted_average(states, [1.0] * len(states))


def masked_average(
    states: Sequence[State], masks: Sequence[Mapping[str, torch.Tensor | float]], fallback: State
) -> dict[str, torch.Tensor]:
    """Each coordinate averaged over the clients whose sub-network holds it, weighted by the mask value.

    ``masks[k][key]`` holds client k's weight for each coordinate of the entry: 0 where its sub-network does not hold
    the coordinate, else 1 (uniform) or its sample count (data-size weighting). It is a tensor shaped like the entry,
    or one number for the whole entry (the same result without a mask tensor per client and entry: Aequa's
    per-width batch norm, whose copies are held whole or not at all). Coordinates no client holds keep ``fallback``
    (usually the previous global state). Keys of ``fallback`` are the keys of the result.
    """
    if len(states) != len(masks):
        raise ValueError("need one mask per state")
    out = {}
    for key, prev in fallback.items():
        num = torch.zeros(prev.shape, dtype=torch.float64, device=prev.device)
        den: torch.Tensor | float = 0.0
        for s, m in zip(states, masks):
            mk = m[key]
            if isinstance(mk, torch.Tensor):
                mk = mk.to(torch.float64)
            elif not mk:
                continue  # a whole entry the client does not hold adds nothing
            num.add_(s[key].to(torch.float64) * mk)
            den = den + mk
        if isinstance(den, torch.Tensor):
            held = den > 0
            out[key] = _cast(torch.where(held, num / torch.where(held, den, 1.0), prev.to(torch.float64)), prev)
        else:
            out[key] = _cast(num / den, prev) if den > 0 else prev.clone()
    return out
