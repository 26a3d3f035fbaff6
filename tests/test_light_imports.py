"""Jobs that do not train never import torch (issue 21): its import costs about 5 s of CPU per job."""

from __future__ import annotations

import subprocess
import sys

# In one fresh interpreter: import each paper's modules (and the CLI) in turn; print the first that pulls in torch.
CHECK = """
import importlib, pkgutil, sys
import fairshare.papers
names = ["fairshare.cli", "fairshare.commands.report"] + [
    f"fairshare.papers.{p.name}.{part}"
    for p in pkgutil.iter_modules(fairshare.papers.__path__)
    for part in ("experiment", "claims", "figures", "commands")
]
for name in names:
    importlib.import_module(name)
    if "torch" in sys.modules:
        print(name)
        break
print(len(names))
"""


def test_no_paper_module_imports_torch():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True).stdout.split()
    assert out[0].isdigit() and int(out[0]) >= 30, f"{out[0]} imports torch"
