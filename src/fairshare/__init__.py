"""fairshare: incentives and fairness in collaborative learning, reproduced.

The package has two halves, in layers that import only downwards (``docs/architecture.md`` draws them and
``tests/test_layers.py`` keeps them so):

**The library** -- the papers' methods, for a notebook or another project. Plain arguments (numbers, arrays,
tensors, generators), never a config block, and no claim, table or experiment code.

- :mod:`fairshare.games` -- exact economics with numpy and scipy: model-sharing errors and stable coalitions, DP
  coalitions, Shapley values and payoff flows, recruitment auctions, Aequa's width allocation. Start here for the
  closed-form papers.
- :mod:`fairshare.learning` -- training with torch: models and slimmable networks, the round driver with checkpoints,
  multi-model FL, Aequa and its baselines, data valuation.
- :mod:`fairshare.data` -- datasets with checksums and verified caches, and the papers' partitions of them.
- :mod:`fairshare.metrics` -- Pearson correlation, MCG/CGS, balanced accuracy, across-task statistics.
- :mod:`fairshare.seeding` -- one root seed split into named ``SeedSequence`` streams.
- underneath both halves: :mod:`fairshare.errors` (the one user-error type), :mod:`fairshare.io` (atomic writes,
  tidy CSV/JSON) and :mod:`fairshare.validate` (checks where a file is read).

**The reproduction** -- what turns a config into the papers' tables, figures and scorecard.

- :mod:`fairshare.papers` -- one folder per paper (experiment, claims, figures, commands): a config block in, the
  paper's results, figures and checked claims out, by calling the library.
- :mod:`fairshare.pipeline` -- what a reproduction needs beyond the library: config loading and validation, run
  sizes, verdicts from per-seed results, the sensitivity register, statement inventories, the scorecard and the HTML
  report's items.
- :mod:`fairshare.commands` and :mod:`fairshare.cli` -- ``fairshare <group> <command>``, the entry point the Snakemake
  rules call.
"""

import os

# oneDNN (torch's CPU convolutions) keeps at most 1,024 compiled kernels by default, and one evicted and compiled
# again can round differently: a run's last bits would then depend on how many runs its process trained before it
# (measured with two intra-op threads: the 9th and 10th Exp 6 runs of one job). oneDNN reads this when torch loads,
# so it is set here, before any fairshare module imports torch; a value already in the environment is kept.
os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "65536")

__version__ = "0.1.0"

# the public submodules: the library, then the reproduction
__all__ = [
    "__version__",
    "games",
    "learning",
    "data",
    "metrics",
    "seeding",
    "errors",
    "io",
    "validate",
    "papers",
    "pipeline",
    "plotting",
    "commands",
    "cli",
]
