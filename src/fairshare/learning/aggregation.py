"""Server-side averaging of client parameters: weighted by data size, uniform, and masked per coordinate."""
from __future__ import annotations

from typing import Mapping, Sequence

import torch

State = Mapping[str, torch.Tensor]


def weighted_average(states: Sequence[State], weights: Sequence[float]) -> dict[str, torch.Tensor]:
    """sum_k w_k state_k / sum_k w_k for every entry (FedAvg with weights = data sizes, Eq. 6 of the MMFL paper)."""
    if not states:
        raise ValueError("nothing to average")
    w = torch.as_tensor(weights, dtype=torch.float64)
    if len(w) != len(states) or torch.any(w < 0) or w.sum() <= 0:
        raise ValueError("need one non-negative weight per state, not all zero")
    w = w / w.sum()
    out = {}
    for key in states[0]:
        stacked = torch.stack([s[key].double() for s in states])
        out[key] = torch.tensordot(w, stacked, dims=1).to(states[0][key].dtype)
    return out


def uniform_average(states: Sequence[State]) -> dict[str, torch.Tensor]:
    return weighted_average(states, [1.0] * len(states))


def masked_average(states: Sequence[State], masks: Sequence[State], fallback: State) -> dict[str, torch.Tensor]:
    """Average each coordinate over the clients whose sub-network holds it; coordinates nobody holds keep ``fallback``."""
    out = {}
    for key in fallback:
        num = sum(s[key].double() * m[key].double() for s, m in zip(states, masks))
        den = sum(m[key].double() for m in masks)
        out[key] = torch.where(den > 0, num / den.clamp(min=1), fallback[key].double()).to(fallback[key].dtype)
    return out
