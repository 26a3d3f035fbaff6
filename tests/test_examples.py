"""Every example under examples/ runs as a user runs it (a subprocess, from the repository root) and prints its
headline line."""

from __future__ import annotations

import re
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
    "aequa.py": "Pearson(contribution, reward accuracy) =",
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
    if name == "aequa.py":
        _check_aequa(done.stdout)


def _check_aequa(out: str) -> None:
    """Each client's reward is a point of the curve with accuracy at least its contribution; where a narrower width
    went to a higher contribution, the curve's dip behind it is printed (issue 39: it read as a bug)."""
    curve = dict(re.findall(r"(\d\.\d\d): (\d\.\d{3})", out.splitlines()[0]))
    clients = re.findall(r"contribution (\d\.\d{3}) -> width (\d\.\d\d), accuracy (\d\.\d{3})", out)
    assert len(clients) == 4, out
    for c, w, a in clients:
        assert curve[w] == a and float(a) >= float(c), (c, w, a)
    narrower = any(float(c1) < float(c2) and float(w1) > float(w2) for c1, w1, _ in clients for c2, w2, _ in clients)
    dips = any(float(curve[w2]) < float(curve[w1]) for w1, w2 in zip(sorted(curve), sorted(curve)[1:]))
    assert ("the curve dips" in out) == dips and (not narrower or dips), out
