# Loads and validates the config, reads the manifest, and gives rules small helpers.
import dataclasses
import hashlib
import json
import os
from pathlib import Path
import shlex
import sys

import yaml

sys.path.insert(0, str(Path(workflow.basedir) / "src"))
from fairshare.config import ConfigError, config_sources, validate_config  # noqa: E402

try:
    _sources = config_sources(workflow.configfiles, workflow.overwrite_configfiles, workflow.config_settings.config)
    _validated = validate_config(config, sources=_sources)
except ConfigError as _err:
    sys.exit(f"invalid config: {_err}")
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


def content_file(text, folder, suffix):
    """Path of a file under .snakemake/fairshare/<folder>/ holding ``text``, named by a digest of it: written once,
    never changed, so a path in a rule's params changes exactly when its content does."""
    path = Path(".snakemake", "fairshare", folder, f"{hashlib.sha256(text.encode()).hexdigest()[:20]}{suffix}")
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(text)
        tmp.replace(path)
    return str(path)


def cfg_file(settings):
    """Path of a JSON file holding exactly ``settings`` (the config a job reads), for `fairshare ... --cfg`.

    The file name is a digest of the content (:func:`content_file`), so a rule's `params` change exactly when what
    the job reads changes (Snakemake then reruns it, and only it), while dry runs and logs print a short path instead
    of the JSON.
    """
    return content_file(json.dumps(settings, sort_keys=True), "job-config", ".json")


def relative_path(path):
    """``path`` relative to the working directory when inside it: a command line that names it stays the same when
    the folder is copied or cloned elsewhere (Snakemake would otherwise see changed params and rerun the job)."""
    resolved = Path(path).resolve()
    return str(resolved.relative_to(Path.cwd())) if resolved.is_relative_to(Path.cwd()) else str(resolved)


# Measurements of this machine's speed (not results: they differ between runs), built by `rule all`, kept out of
# results/ so that two runs of the same config give byte-identical results/ and figures/.
TIMINGS = []


def cfg_json(*keys):
    """:func:`cfg_file` of the named top-level config blocks: editing one paper's settings reruns only its jobs."""
    return cfg_file({k: config[k] for k in keys})


# Rules call the project's own `fairshare` command: put the environment that runs Snakemake first on PATH, so it is
# found without activating the environment (`.venv/bin/snakemake ...`); cluster jobs re-read this file and do the same.
shell.prefix(f'set -euo pipefail; export PATH={shlex.quote(str(Path(sys.executable).parent))}:"$PATH"; ')
# Training jobs checkpoint every round under checkpoints/<paper>/ (git- and DVC-ignored, not a rule output): a killed
# job resumes from its last round, and a checkpoint written for other settings is discarded (learning/rounds.py).
CHECKPOINTS = "checkpoints"

# Training rules declare `gpu=GPU`: one GPU each when the profile trains on CUDA (serialised locally by the
# profile's `resources: gpu=1`, sent as --gpus=1 by the SLURM executor); none on CPU, so CPU jobs run in parallel.
GPU = 1 if config["device"] == "cuda" else 0
