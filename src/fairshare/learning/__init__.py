"""Training code (torch; never reads config files, only plain arguments).

Shared pieces: ``rounds`` (the round driver every training job goes through: per-round metrics, progress,
checkpoints keyed by a settings hash, resume), ``engine`` (local training of a cohort of clients: sequential
reference and batched executor; evaluation; ``cohort``: the batched executor's stacked clients and their steps), ``models`` (every architecture, quirks as options), ``slimmable``
(slimmable layers, switchable batch norm, width control), ``aggregation`` (weighted, uniform, masked averaging).
The papers' algorithms as round steps: ``mmfl``, ``aequa``, ``aequa_training_time``, ``baselines`` (standalone,
FedAvg-FT, CGSV, IAFL), ``valuation`` (one model per coalition); ``mmfl_theory`` (closed forms of FedFairMMFL's
Sec. IV, numpy only). docs/engine.md describes the engine's API.
"""

# the public submodules
__all__ = [
    "aequa",
    "aequa_training_time",
    "aggregation",
    "baselines",
    "cohort",
    "device",
    "engine",
    "evaluation",
    "kernels",
    "mmfl",
    "mmfl_policies",
    "mmfl_theory",
    "models",
    "progress",
    "rounds",
    "sgd",
    "slimmable",
    "valuation",
]
