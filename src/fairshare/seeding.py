"""One root seed per run, split into independent named streams with ``numpy.random.SeedSequence``.

Streams are addressed by name (``"partition"``, ``"init"``, ``"sampling"``, ``"data_order"``, ...) plus optional
integer keys (seed index, client id, round). The derivation hashes the name into the spawn key, so adding a new
stream never shifts the numbers of an existing one, and the result does not depend on call order.
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["STREAMS", "seed_sequence", "generator", "integer_seed", "torch_seed"]

STREAMS = ("partition", "init", "sampling", "data_order", "game", "dataset")


def _name_key(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little")


def seed_sequence(root_seed: int, stream: str, *keys: int) -> np.random.SeedSequence:
    """SeedSequence for ``stream`` (and optional integer sub-keys) derived from ``root_seed``."""
    if root_seed < 0:
        raise ValueError(f"root seed must be non-negative, got {root_seed}")
    if any(int(k) < 0 for k in keys):
        raise ValueError(f"stream keys must be non-negative integers, got {keys}")
    return np.random.SeedSequence(entropy=int(root_seed), spawn_key=(_name_key(stream), *map(int, keys)))


def generator(root_seed: int, stream: str, *keys: int) -> np.random.Generator:
    """An independent ``numpy.random.Generator`` for ``stream`` under ``root_seed``."""
    return np.random.Generator(np.random.PCG64(seed_sequence(root_seed, stream, *keys)))


def integer_seed(root_seed: int, stream: str, *keys: int) -> int:
    """A 63-bit integer seed for libraries that need one (``torch.Generator.manual_seed``)."""
    return int(seed_sequence(root_seed, stream, *keys).generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def torch_seed(root_seed: int, stream: str, *keys: int) -> int:
    """The 31-bit seed of ``stream`` that torch is seeded with (``torch.manual_seed`` takes any 64-bit value; 31 bits
    keep the seeds of existing results unchanged)."""
    return integer_seed(root_seed, stream, *keys) % 2**31
