"""Every example under examples/ runs as a user runs it (a subprocess, from the repository root) and prints its
headline line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = {
    "model_sharing.py": "core-stable partitions: {a,b},{c}",
    "dp_coalitions.py": "nash equilibria at sigma^2 = 1.2: [(0, 1, 2)]",
    "payoff_flows.py": "with budgets (0.05, 0.05, 0.05): lambda* =",
    "auctions.py": "Corollary 10, B*lambda = 2.0: P(a task gets no user) max-min 0.4060, budget-fair 0.6004",
    "mmfl.py": "fedfair  final accuracy: digits",
    "aequa.py": "Pearson(contribution, reward) =",
}


def test_every_example_is_listed():
    assert {p.name for p in (ROOT / "examples").glob("*.py")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs(name: str):
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name)], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert EXPECTED[name] in done.stdout, done.stdout
