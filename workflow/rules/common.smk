# Loads and validates the config, reads the manifest, and gives rules small helpers.
import json
from pathlib import Path
import shlex
import sys

import yaml
from snakemake.exceptions import WorkflowError

sys.path.insert(0, str(Path(workflow.basedir) / "src"))
from fairshare.config import ConfigError, validate_config  # noqa: E402

try:
    _validated = validate_config(config)
except ConfigError as _err:
    raise WorkflowError(f"invalid config: {_err}") from None
config.clear()
config.update(_validated)

MANIFEST = yaml.safe_load(Path(workflow.basedir, "workflow", "manifest.yaml").read_text()) or []


def _as_list(output):
    return output if isinstance(output, list) else [output]


# Git tracks metrics/ (the default profile's DVC metrics); other profiles write theirs under results/ instead, so a
# test or paper-scale run never changes a tracked file.
METRICS_DIR = "metrics" if config["profile"] == "default" else f"results/metrics/{config['profile']}"
METRICS = f"{METRICS_DIR}/summary.json"
PAPERS = sorted({e["paper"] for e in MANIFEST} - {"report", "partitions"})


def profile_path(path):
    """A manifest path as this profile writes it (only the tracked metrics file moves)."""
    return METRICS if path == "metrics/summary.json" else path


def manifest_outputs(paper=None):
    """Every artifact path listed in workflow/manifest.yaml (optionally for one paper)."""
    return [profile_path(p) for e in MANIFEST if paper in (None, e["paper"]) for p in _as_list(e["output"])]


def cfg_json(*keys):
    """Shell-quoted JSON of the named top-level config blocks, for `fairshare ... --cfg`.

    Passing only the blocks a rule needs means editing one paper's settings reruns only that paper's jobs.
    """
    return shlex.quote(json.dumps({k: config[k] for k in keys}, sort_keys=True))


# Rules call the project's own `fairshare` command: put the environment that runs Snakemake first on PATH, so it is
# found without activating the environment (`.venv/bin/snakemake ...`); cluster jobs re-read this file and do the same.
shell.prefix(f'set -euo pipefail; export PATH={shlex.quote(str(Path(sys.executable).parent))}:"$PATH"; ')
FAIRSHARE = "fairshare"  # transitional: rule files are being switched to plain `fairshare`
# Training jobs checkpoint every round under checkpoints/<paper>/ (git- and DVC-ignored, not a rule output): a killed
# job resumes from its last round, and a checkpoint written for other settings is discarded (learning/rounds.py).
CHECKPOINTS = "checkpoints"

# Training rules declare `gpu=GPU`: one GPU each when the profile trains on CUDA (serialised locally by the
# profile's `resources: gpu=1`, sent as --gpus=1 by the SLURM executor); none on CPU, so CPU jobs run in parallel.
GPU = 1 if config["device"] == "cuda" else 0
