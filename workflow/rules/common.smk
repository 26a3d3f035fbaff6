# Loads and validates the config, reads the manifest, and holds every function the rule files call, one section for
# each file of rules (those hold rules and constants only). Which runs share a training job: workflow/run_jobs.py.
import dataclasses
import hashlib
import json
import os
from pathlib import Path
import shlex
import sys

import yaml
from snakemake.io import apply_wildcards

sys.path[:0] = [str(Path(workflow.basedir) / "src"), str(Path(workflow.basedir) / "workflow")]
from fairshare.pipeline.config import ConfigError, config_sources, dataset_mirrors, validate_config  # noqa: E402
from fairshare.data.datasets import resolve_dataset  # noqa: E402
from fairshare.validate import check_path  # noqa: E402
from fairshare.pipeline import resources as sizes  # noqa: E402
from run_jobs import runs_per_job, settings, training_jobs  # noqa: E402
from fairshare.pipeline import scheduler_idle  # noqa: E402

scheduler_idle.install()  # no stat of every ready job's inputs each second while all cores are busy

try:
    _sources = config_sources(workflow.configfiles, workflow.overwrite_configfiles, workflow.config_settings.config)
    _validated = validate_config(config, sources=_sources)
except ConfigError as _err:
    sys.exit(f"invalid config: {_err}")
config.clear()
config.update(_validated)

# One profile per tree (issue 27): results/, figures/ and logs/ hold one profile's run. The first real run writes
# results/.profile; a run of another profile in the same tree (a dry run too) is refused in one line, so a paper-scale
# plan can never overwrite the default profile's results, or the reverse.
PROFILE_MARK = Path("results", ".profile")
if PROFILE_MARK.is_file() and PROFILE_MARK.read_text().strip() != config["profile"]:
    sys.exit(
        f"this folder holds the {PROFILE_MARK.read_text().strip()!r} profile's results (results/.profile); run the "
        f"{config['profile']!r} profile in its own clone (git clone . ../fairshare-{config['profile']}), or move "
        "results/, figures/ and logs/ away first"
    )


MANIFEST = yaml.safe_load(Path(workflow.basedir, "workflow", "manifest.yaml").read_text()) or []
# The papers this run reproduces (config `papers`, all by default). Every rule file still declares its rules; `rule
# all`, the scorecard and the report ask only for these papers' artifacts and training jobs, so Snakemake runs nothing
# of the others.
PAPERS_RUN = set(config["papers"] or {e["paper"] for e in MANIFEST} - {"report", "partitions"})
MANIFEST = [e for e in MANIFEST if e["paper"] in PAPERS_RUN | {"report", "partitions"}]


def _as_list(output):
    return output if isinstance(output, list) else [output]


# Git tracks metrics/ (the default profile's DVC metrics); other profiles, and a default run of some papers only,
# write theirs under results/ instead, so a test, paper-scale or partial run never changes a tracked file.
TRACKED_METRICS = config["profile"] == "default" and not config["papers"]
METRICS_DIR = "metrics" if TRACKED_METRICS else f"results/metrics/{config['profile']}"
METRICS = f"{METRICS_DIR}/summary.json"
PAPERS = sorted(PAPERS_RUN)
# Each profile's column of the verdict table (one row per training statement): git tracks the default profile's and
# the committed snapshots of the others under metrics/verdicts/ (README "Verdicts by profile").
VERDICTS = "metrics/verdicts/default.csv" if TRACKED_METRICS else f"{METRICS_DIR}/verdicts.csv"
# The CPU profiles; the paper profile's column: not run here. decisive: the default profile at the seed plan's counts
# (config/decisive.yaml). cpu_scale_faithful: the CPU-scale profile's multi-model FL
# and Exp 6 with the authors' CNN (its committed cpu_scale run trained the corrected one; docs/scale_ladder.md).
VERDICT_PROFILES = ["test", "default", "decisive", "cpu_scale", "cpu_scale_faithful"]


def verdict_columns():
    """PROFILE=CSV arguments of `fairshare report verdict-table`: this run's verdicts for its own profile, the
    committed snapshot for each other CPU profile (empty where none: not run here), and the paper profile not run
    here. A plain string, not a function of the job, so that Snakemake's params trigger reruns the table when the
    profiles, or which of them have a snapshot, change."""
    columns = []
    for profile in VERDICT_PROFILES:
        path = VERDICTS if profile == config["profile"] else f"metrics/verdicts/{profile}.csv"
        columns.append(f"{profile}={path}" if Path(path).is_file() or path == VERDICTS else f"{profile}=")
    return " ".join(columns + ["paper-scale="])


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
# Training jobs checkpoint every round under checkpoints/<paper>/ (git- and DVC-ignored, no output of any job); a killed
# job resumes from its last round, and a checkpoint written for other settings is discarded (learning/rounds.py).
CHECKPOINTS = "checkpoints"

# Training rules declare `gpu=GPU`: one GPU each when the profile trains on CUDA (serialised locally by the
# profile's `resources: gpu=1`, sent as --gpus=1 by the SLURM executor); none on CPU, so CPU jobs run in parallel.
GPU = 1 if config["device"] == "cuda" else 0


# Every training job with the runs of its step, for `training_outputs`.
TRAINING_JOBS = []


def training_rules(paper, rule, runs, **grouping):
    """The training jobs of one step of ``paper`` under the config's `runs_per_job` (workflow/run_jobs.py): a rule
    file declares one rule per job; `rule all` lists their outputs where the run reproduces ``paper``."""
    jobs = training_jobs(rule, runs, runs_per_job(config, paper), **grouping)
    if paper in PAPERS_RUN:
        TRAINING_JOBS.extend((job, runs) for job in jobs)
    return jobs


def training_outputs():
    """Every output file of every training job. `rule all` lists them, so the plain command recreates those a stopped
    `--forcerun` deleted (Snakemake removes a forced job's outputs before it runs) even when the summaries made from
    them are still there."""
    files = []
    for job, runs in TRAINING_JOBS:
        mine = [run for run in runs if job.holds(run)]
        for pattern in getattr(rules, job.name).output:
            files += [apply_wildcards(pattern, run) for run in mine] if job.constraints else [pattern]
    return files


# data.smk: datasets and partitions.


def dataset_name(name):
    """The dataset the jobs really use: `name`, or its offline fallback when it cannot be had here."""
    d = config["data"]
    if name in d["stand_in"]["datasets"]:  # smoke profile: built as a stand-in, never replaced by a fallback
        return name
    return resolve_dataset(
        name,
        raw_dir=d["raw_dir"],
        processed_dir=d["processed_dir"],
        mirrors=dataset_mirrors(d, name),
        allow_download=d["allow_download"],
        fallback=d["offline_fallback"],
    )


def dataset_file(name):
    return f"{PROCESSED}/{dataset_name(name)}.npz"


def dataset_caches():
    """Every cache the run uses. `rule all` lists them, so a deleted cache is rebuilt by the plain command, and
    everything computed from it reruns (Snakemake reruns every job downstream of a job it runs)."""
    return sorted({dataset_file(name) for name in USED_DATASETS})


def dataset_content(name):
    """The settings that decide a cache's content: a change rebuilds it. Torchvision datasets have none (their files
    are checked against published MD5s), so editing where they are fetched from rebuilds nothing."""
    keys = {"digits": ["seed"], "synthetic": ["seed", "synthetic"]}.get(name, [])
    if name in config["data"]["stand_in"]["datasets"]:
        keys = ["seed", "stand_in"]
    values = {"seed": config["seed"], "synthetic": config["data"]["synthetic"], "stand_in": config["data"]["stand_in"]}
    return json.dumps({k: values[k] for k in keys}, sort_keys=True)


# payoff_flows.smk: coalition valuation.


def pf_coalition_args(masks, outputs):
    """`--coalition MASK OUTPUT CHECKPOINT` for every coalition of a valuation job."""
    return " ".join(
        f"--coalition {m} {path} {CHECKPOINTS}/payoff_flows/coalition_{m}.pt" for m, path in zip(masks, outputs)
    )


def pf_valuation_cfg(wildcards):
    """Only the keys a valuation reads: editing the budget scenarios reruns no training."""
    return cfg_file(
        {"seed": config["seed"], "device": config["device"], "payoff_flows": {k: PF[k] for k in Valuation.KEYS}}
    )


def pf_figure_title(wildcards):
    if wildcards.source == "reference":
        return shlex.quote("Figure 2 from the authors' stored MNIST value table")
    epochs = f"{PF['epochs']} epoch{'s' if PF['epochs'] != 1 else ''}"
    return shlex.quote(
        f"Figure 2 from this run's coalition valuation ({dataset_name(PF['dataset'])}, "
        f"{epochs}, profile {config['profile']})"
    )


# mmfl.smk: multi-model FL training. A run: {experiment, label, seed}.


def mmfl_run_file(run, suffix):
    return f"{MMFL_RESULTS}/runs/{run['experiment']}/{run['label']}/seed{run['seed']}{suffix}"


def mmfl_inputs(runs):
    return sorted({dataset_file(t) for r in runs for t in MMFL.experiment(r["experiment"]).tasks})


def mmfl_job_cfg(experiment):
    """The blocks a run reads, with only its own experiment (one run per job: editing one experiment reruns only its
    jobs)."""
    block = {**config["mmfl"], "experiments": [e for e in config["mmfl"]["experiments"] if e["name"] == experiment]}
    return cfg_file({"seed": config["seed"], "device": config["device"], "mmfl": block})


def mmfl_commands(runs):
    """`mmfl run ...` for the runs of each experiment (joined by `+`), with the --cfg of that experiment alone: a
    run's command is the same whichever job holds it."""
    commands = []
    for (experiment,), members in settings(runs, "experiment").items():
        chosen = [MMFL_RUNS[(experiment, r["label"], int(r["seed"]))] for r in members]
        files = {
            "--output": [mmfl_run_file(r, ".csv") for r in members],
            "--allocation": [mmfl_run_file(r, "_alloc.npz") for r in members],
            "--checkpoint": [f"{CHECKPOINTS}/mmfl/{r['experiment']}/{r['label']}/seed{r['seed']}.pt" for r in members],
        }
        command = [
            f"mmfl run --experiment {experiment} --method {' '.join(r.method for r in chosen)}",
            f"--alpha {' '.join('none' if r.alpha is None else repr(r.alpha) for r in chosen)}",
            f"--seed-index {' '.join(str(r.seed) for r in chosen)}",
            "--datasets " + " ".join(f"{t}={dataset_file(t)}" for t in MMFL.experiment(experiment).tasks),
            *(f"{flag} {' '.join(paths)}" for flag, paths in files.items()),
            f"--cfg {mmfl_job_cfg(experiment)}",
        ]
        commands.append(" ".join(command))
    return " + ".join(commands)


# auctions.smk: recruitment auctions and Exp 6. An Exp 6 run: {mechanism, seed}.


def figure_stem(png):
    """A figure's path without suffix (the figure commands write .png and .pdf next to each other)."""
    return str(Path(png).with_suffix(""))


def exp6_cfg_json():
    """Only what Exp 6 training reads: the exp6 part of the auctions block (the recruitment files carry the rest)
    and the multi-model FL block's training settings, so editing Exp 5 or a multi-model FL experiment retrains no
    Exp 6 job."""
    training = {k: config["mmfl"][k] for k in MMFL_TRAINING_KEYS}
    return cfg_file({"seed": config["seed"], "device": config["device"], "mmfl": training, "auctions": {"exp6": AU6}})


def exp6_file(folder, run, suffix):
    """An Exp 6 run's recruitment file (``folder`` AU6_RECRUIT) or result (``folder`` results/auctions/exp6)."""
    return f"{folder}/{run['mechanism']}/seed{run['seed']}{suffix}"


# aequa.smk and aequa_extensions.smk. A run: {dataset, partition, seed} (main experiments, training-time rewards),
# {dataset, seed} (participation) or {seed} (scale); one run trains every method of its setting.


def aequa_methods(shape):
    """The methods of one run: standalone first (the contributions), then the configured ones, then (shape "pmin":
    quantity-skew partitions) Aequa with a lower p_min (Table 8)."""
    return ["standalone", *AEQUA["methods"], *(["aequa_pmin"] if shape == "pmin" else [])]


def aequa_shape(run):
    return "pmin" if AEQUA_SCHEMES[run["partition"]] == "quantity_skew" and "aequa" in AEQUA["methods"] else ""


def aequa_job_cfg(*extensions, partition=None):
    """--cfg of one training job: seed, device and the aequa keys training reads (plus the named extension blocks).
    With ``partition``, only that partition's entry is passed, so editing another partition reruns none of its jobs.
    """
    keep = {k: v for k, v in AEQUA.items() if k not in AEQUA_NON_TRAINING_KEYS or k in extensions}
    if partition is not None:
        keep["partitions"] = [p for p in AEQUA["partitions"] if p["name"] == partition]
    return cfg_file({"seed": config["seed"], "device": config["device"], "aequa": keep})


def aequa_run_file(folder, run, method):
    """One method's result of a run under results/aequa/``folder`` (runs, training_time, participation, scale)."""
    setting = [run[k] for k in ("dataset", "partition") if k in run]
    return str(Path("results", "aequa", folder, *setting, method, f"seed{run['seed']}.json"))


def aequa_run_args(folder, runs, methods):
    """`--run SEED METHOD OUTPUT CHECKPOINT` for every method of every run (checkpoints mirror the outputs)."""
    args = []
    for r in runs:
        for m in methods(r):
            path = aequa_run_file(folder, r, m)
            args.append(f"--run {r['seed']} {m} {path} {CHECKPOINTS}/{path.removeprefix('results/')[:-5]}.pt")
    return args


def aequa_commands(runs):
    """`aequa run ...` for the runs of each (dataset, partition) (joined by `+`), with that partition's --cfg."""
    return " + ".join(
        " ".join(
            [
                f"aequa run --dataset {d} --dataset-file {dataset_file(d)} --partition {p}",
                *aequa_run_args("runs", members, lambda r: aequa_methods(aequa_shape(r))),
                f"--cfg {aequa_job_cfg(partition=p)}",
            ]
        )
        for (d, p), members in settings(runs, "dataset", "partition").items()
    )


def aequa_participation_commands(runs):
    """`aequa-ext participation ...` for the runs of each dataset (joined by `+`)."""
    return " + ".join(
        " ".join(
            [
                f"aequa-ext participation --dataset {d} --dataset-file {dataset_file(d)}",
                *aequa_run_args("participation", members, lambda r: AEQUA_PART["methods"]),
                f"--cfg {aequa_job_cfg('participation', partition=AEQUA_PART['partition'])}",
            ]
        )
        for (d,), members in settings(runs, "dataset").items()
    )


def aequa_tt_standalone(run):
    """The main experiments' standalone run of a training-time run's setting: its contributions."""
    return aequa_run_file("runs", run, "standalone")


def aequa_tt_commands(runs):
    """`aequa-ext training-time ...` for the runs of each (dataset, partition) (joined by `+`), with the main
    experiments' standalone runs of that setting as the contributions."""
    return " + ".join(
        " ".join(
            [
                f"aequa-ext training-time --dataset {d} --dataset-file {dataset_file(d)}",
                f"--partition {p}",
                *aequa_run_args("training_time", members, lambda r: AEQUA_TT["methods"]),
                *(f"--standalone {r['seed']} {aequa_tt_standalone(r)}" for r in members),
                f"--cfg {aequa_job_cfg('training_time', partition=p)}",
            ]
        )
        for (d, p), members in settings(runs, "dataset", "partition").items()
    )


def scale_inputs(wildcards):
    inputs = {"data": SCALE_DATA}
    if SCALE_WRITERS:
        inputs["writers"] = SCALE_WRITERS
    return inputs


# report.smk: the scorecard and the HTML report.


def seeds_run_arguments(wildcards):
    """KEY=N for each config key of the seed plan (workflow/seed_plan.yaml): the seeds this run gave it, whether the
    plan set them or the config did (`fairshare report scorecard --seeds-run`)."""
    from fairshare.pipeline.seed_plan import load_plan

    keys = sorted({group.config for group in load_plan(Path(workflow.basedir, "workflow", "seed_plan.yaml")).groups})
    found = {}
    for key in keys:
        node = config
        for part in key.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, int):
            found[key] = node
    return " ".join(f"{key}={n}" for key, n in found.items())


def config_summary(paper):
    """The scalar settings of a paper's config block (its seeds, rounds, epochs, dataset...), for the caption."""
    block = config.get(paper)
    if not isinstance(block, dict):
        return f"{len(block or [])} configured entries"
    items = [f"{k}={v}" for k, v in sorted(block.items()) if isinstance(v, (str, int, float, bool))]
    text = ", ".join(items)
    return text if len(text) <= 400 else text[:397] + "..."


def check_file(path):
    """The check file written beside a CSV that a later step reads (row count, digest; fairshare.validate): an output
    of the rule that writes the CSV."""
    return str(check_path(path))


def claims_files():
    return [p for e in REPORT_ENTRIES.values() for p in _as_list(e["output"]) if Path(p).name.endswith("claims.csv")]


def report_source(entry):
    """The file that names the job making an entry (its PNG for figures, its first Markdown or CSV table)."""
    outputs = _as_list(entry["output"])
    for suffix in ((".png",) if entry["kind"] == "figure" else (".md", ".csv")) + (".png", ".csv", ".md"):
        for p in outputs:
            if p.endswith(suffix):
                return p
    return outputs[0]


def report_inputs(entry):
    """The files shown by an entry's report item: a figure's PNG; every CSV, Markdown and JSON file of a table."""
    if entry["kind"] == "figure":
        return [report_source(entry)]
    return [p for p in _as_list(entry["output"]) if p.endswith((".csv", ".md", ".json"))]


def report_item(item_id):
    """The report's copy of an item: the figure's PNG, or the table's files as one HTML page."""
    suffix = ".png" if REPORT_ENTRIES[item_id]["kind"] == "figure" else ".html"
    return f"results/report_items/{item_id}{suffix}"


def report_items():
    return [report_item(item_id) for item_id in REPORT_ENTRIES]


def report_caption(item_id):
    """Where the item's caption is written (rule report_captions, after the scorecard), as Snakemake reads it."""
    return str(Path("results", "report_captions", f"{item_id}.rst").resolve())


def producer(path):
    """The rule that makes ``path`` (its name, rule file and shell command template)."""
    made_by = next(r for r in workflow.rules if r.is_producer(path))
    snakefile = relative_path(str(made_by.snakefile)) if made_by.snakefile else "Snakefile"
    return {"rule": made_by.name, "snakefile": snakefile, "template": made_by.shellcmd or "(run block)"}


def report_items_spec():
    """The JSON file telling `fairshare report items` what each item shows."""
    spec = [
        {
            "output": report_item(item_id),
            "inputs": report_inputs(entry),
            "kind": entry["kind"],
            "title": f"{entry['ref']} ({item_id})",
        }
        for item_id, entry in REPORT_ENTRIES.items()
    ]
    return content_file(json.dumps(spec, indent=1), "report-items", ".json")


def caption_entry(item_id):
    """A manifest entry with what its caption says besides the scorecard counts."""
    entry = REPORT_ENTRIES[item_id]
    return {
        **entry,
        **producer(report_source(entry)),
        "rows": entry.get("rows", []),
        "title": PAPER_TITLES.get(entry["paper"], entry["paper"]),
        "profile": config["profile"],
        "seed": config["seed"],
        "settings": config_summary(entry["paper"]),
        "files": _as_list(entry["output"]),
        "source": report_source(entry),
        "caption": relative_path(report_caption(item_id)),
    }


def report_captions_spec():
    """The JSON file telling `fairshare report captions` each item's caption fields."""
    spec = [caption_entry(item_id) for item_id in REPORT_ENTRIES]
    return content_file(json.dumps(spec, indent=1, default=str), "report-captions", ".json")


# A sensitivity rerun of multi-model FL / Exp 6 (rules in sensitivity.smk; Snakemake lints a file that mixes rules
# and functions, so the helper lives here; it reads the globals mmfl.smk and sensitivity.smk define, at call time).
def sensitivity_mmfl_job(entry, root):
    """(outputs, inputs, shell commands, claims CSV) of one multi-model FL / Exp 6 rerun."""
    changed = tuned.rerun_config(config, entry)
    block = changed["mmfl"]
    settings_ = MMFLSettings.from_block(block)
    if {(r.experiment, r.label, r.seed) for r in settings_.runs()} != set(MMFL_RUNS):
        sys.exit(f"workflow/tuned_settings.yaml: '{entry.id}' changes which multi-model FL runs exist; not supported")
    runs = tuned.mmfl_rerun(entry, MMFL_FILES)
    main_runs = [mmfl_run_file(r, ".csv") for r in MMFL_FILES]
    new_runs = {mmfl_run_file(r, ".csv"): tuned.mmfl_file(root, r, ".csv") for r in runs}
    experiments = sorted({r["experiment"] for r in runs})
    tasks = {e: settings_.experiment(e).tasks for e in experiments}
    cfgs = {
        e: cfg_file(
            {
                "seed": config["seed"],
                "device": config["device"],
                "mmfl": {**block, "experiments": [x for x in block["experiments"] if x["name"] == e]},
            }
        )
        for e in experiments
    }
    chosen = {(r.experiment, r.label, str(r.seed)): (r.method, r.alpha) for r in MMFL_RUNS.values()}
    commands = tuned.mmfl_commands(
        runs,
        chosen,
        {e: [f"{t}={dataset_file(t)}" for t in tasks[e]] for e in experiments},
        cfgs,
        root,
        CHECKPOINTS,
    )
    inputs = sorted({dataset_file(t) for e in experiments for t in tasks[e]})
    outputs, claims = [], []
    if entry.kind in ("mmfl", "mmfl_claims"):
        commands.append(
            tuned.mmfl_summarize(root, main_runs, new_runs, cfg_file({"seed": config["seed"], "mmfl": block}))
        )
        inputs += [q for p in main_runs if p not in new_runs for q in (p, check_file(p))]
        outputs += tuned.mmfl_outputs(root, runs)
        outputs += [check_file(p) for p in new_runs.values()] + [check_file(f"{root}/mmfl/claims.csv")]
        claims.append(f"{root}/mmfl/claims.csv")
    if entry.kind == "exp6_claims" or entry.rerun.get("exp6"):
        main6 = [exp6_file(f"{AU_RESULTS}/exp6", r, ".csv") for r in AU6_RUNS]
        runs6 = main6
        if entry.rerun.get("exp6"):
            runs6 = [exp6_file(f"{root}/auctions/exp6", r, ".csv") for r in AU6_RUNS]
            training = {k: block[k] for k in MMFL_TRAINING_KEYS}
            cfg6 = cfg_file(
                {"seed": config["seed"], "device": config["device"], "mmfl": training, "auctions": {"exp6": AU6}}
            )
            recruitment = [exp6_file(AU6_RECRUIT, r, ".json") for r in AU6_RUNS]
            commands.append(
                f"auctions exp6 --recruitment {' '.join(recruitment)}"
                f" --datasets {' '.join(f'{t}={dataset_file(t)}' for t in AU6['tasks'])}"
                f" --output {' '.join(runs6)}"
                f" --checkpoint {' '.join(exp6_file(f'{CHECKPOINTS}/sensitivity/{entry.id}/auctions/exp6', r, '.pt') for r in AU6_RUNS)}"
                f" --cfg {cfg6}"
            )
            inputs += recruitment + [check_file(p) for p in recruitment] + [dataset_file(t) for t in AU6["tasks"]]
            outputs += runs6 + [check_file(p) for p in runs6]
        else:
            inputs += main6 + [check_file(p) for p in main6]
        out6 = f"{root}/auctions"
        commands.append(
            f"auctions figure7c {' '.join(runs6)} --summary {out6}/exp6_summary.csv --claims {out6}/exp6_claims.csv"
            f" --output {out6}/fig7c --cfg {cfg_file({'auctions': changed['auctions']})}"
        )
        outputs += [f"{out6}/exp6_summary.csv", f"{out6}/fig7c.png", f"{out6}/fig7c.pdf"]
        outputs += [f"{out6}/exp6_claims.csv", check_file(f"{out6}/exp6_claims.csv")]
        claims.append(f"{out6}/exp6_claims.csv")
    if len(claims) > 1:
        commands.append(f"sensitivity join-claims --output {root}/claims.csv {' '.join(claims)}")
        outputs += [f"{root}/claims.csv", check_file(f"{root}/claims.csv")]
        claims = [f"{root}/claims.csv"]
    return outputs, sorted(set(inputs)), commands, claims[0]
