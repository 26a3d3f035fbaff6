# "Fair Concurrent Training of Multiple Models in FL": training (one job for every run, or one per run and seed:
# mmfl.job_granularity), then summaries.
from fairshare.papers.mmfl.experiment import Settings as MMFLSettings, Training as MMFLTraining

MMFL = MMFLSettings.from_block(config["mmfl"])
MMFL_TRAINING_KEYS = [f.name for f in dataclasses.fields(MMFLTraining)]  # what Exp 6 of the auctions reads too
MMFL_RESULTS = "results/mmfl"
MMFL_LOGS = "logs/mmfl"
# One folder per run: runs/<experiment>/<label>/seed<k>; the label is only a folder name (alpha travels as --alpha).
MMFL_RUNS = {(r.experiment, r.label, r.seed): r for r in MMFL.runs()}
MMFL_FIGURES = {
    name: f"figures/mmfl/{stem}"
    for name, stem in (
        ("min-accuracy", "min_accuracy"),
        ("per-task", "per_task_accuracy"),
        ("variance", "variance_across_tasks"),
        ("allocation-maps", "allocation_maps"),
    )
}
for _e in MMFL.experiments:
    USED_DATASETS.update(_e.tasks)


def mmfl_run_file(run, suffix):
    return f"{MMFL_RESULTS}/runs/{run.experiment}/{run.label}/seed{run.seed}{suffix}"


def mmfl_job_runs(experiment, label=None, seed=None):
    """The runs one job trains: every run of ``experiment``, or the one run ``label`` and ``seed`` name."""
    if seed is not None:
        return [MMFL_RUNS[(experiment, label, int(seed))]]
    return [r for r in MMFL_RUNS.values() if r.experiment == experiment]


def mmfl_job_cfg(experiment):
    """The blocks a run reads, with only its own experiment (under `seed` granularity, editing one experiment reruns
    only its jobs)."""
    block = {**config["mmfl"], "experiments": [e for e in config["mmfl"]["experiments"] if e["name"] == experiment]}
    return cfg_file({"seed": config["seed"], "device": config["device"], "mmfl": block})


def mmfl_run_command(experiment, label=None, seed=None):
    """`mmfl run ...` training every run of ``experiment`` (or the one run ``label`` and ``seed`` name), with the
    --cfg of that experiment alone: the same command whichever job runs it."""
    runs = mmfl_job_runs(experiment, label, seed)
    alphas = ["none" if r.alpha is None else repr(r.alpha) for r in runs]
    files = {
        "--output": [mmfl_run_file(r, ".csv") for r in runs],
        "--allocation": [mmfl_run_file(r, "_alloc.npz") for r in runs],
        "--checkpoint": [f"{CHECKPOINTS}/mmfl/{r.experiment}/{r.label}/seed{r.seed}.pt" for r in runs],
    }
    return " ".join(
        [
            f"mmfl run --experiment {experiment} --method {' '.join(r.method for r in runs)}",
            f"--alpha {' '.join(alphas)} --seed-index {' '.join(str(r.seed) for r in runs)}",
            "--datasets " + " ".join(f"{t}={dataset_file(t)}" for t in MMFL.experiment(experiment).tasks),
            *(f"{flag} {' '.join(paths)}" for flag, paths in files.items()),
            f"--cfg {mmfl_job_cfg(experiment)}",
        ]
    )


if MMFL.job_granularity == "seed":

    rule mmfl_run:
        """Train one seed of one (experiment, method, alpha), checkpointing every round."""
        input:
            lambda w: [dataset_file(t) for t in MMFL.experiment(w.experiment).tasks],
        output:
            rows=f"{MMFL_RESULTS}/runs/{{experiment}}/{{label}}/seed{{seed}}.csv",
            alloc=f"{MMFL_RESULTS}/runs/{{experiment}}/{{label}}/seed{{seed}}_alloc.npz",
        log:
            f"{MMFL_LOGS}/run_{{experiment}}_{{label}}_seed{{seed}}.log",
        wildcard_constraints:
            seed=r"\d+",
        resources:
            gpu=GPU,
        params:
            command=lambda w: mmfl_run_command(w.experiment, w.label, w.seed),
        shell:
            "fairshare {params.command} > {log} 2>&1"

else:

    rule mmfl_run:
        """Train every run of every experiment in one process (one command per experiment, joined by `+`), one after
        another, checkpointing every round."""
        input:
            sorted({dataset_file(t) for e in MMFL.experiments for t in e.tasks}),
        output:
            rows=[mmfl_run_file(r, ".csv") for r in MMFL_RUNS.values()],
            alloc=[mmfl_run_file(r, "_alloc.npz") for r in MMFL_RUNS.values()],
        log:
            f"{MMFL_LOGS}/runs.log",
        resources:
            gpu=GPU,
        params:
            commands=lambda w: " + ".join(mmfl_run_command(e.name) for e in MMFL.experiments),
        shell:
            "fairshare {params.commands} > {log} 2>&1"


rule mmfl_summarize:
    """Tidy summary, min/mean/variance across tasks, Table II, rounds to threshold and the claims; then Figures 2-6:
    min accuracy, per-task accuracy, variance across tasks, allocation maps (alpha sweep, seed 0). One process."""
    input:
        runs=[mmfl_run_file(r, ".csv") for r in MMFL_RUNS.values()],
        alloc=[
            mmfl_run_file(r, "_alloc.npz")
            for r in MMFL_RUNS.values()
            if r.experiment == MMFL.alpha_sweep_experiment and r.seed == 0
        ],
    output:
        summary=f"{MMFL_RESULTS}/summary.csv",
        across=f"{MMFL_RESULTS}/across_tasks.csv",
        table2=f"{MMFL_RESULTS}/table2.csv",
        table2_md=f"{MMFL_RESULTS}/table2.md",
        thresholds=f"{MMFL_RESULTS}/rounds_to_threshold.csv",
        claims=f"{MMFL_RESULTS}/claims.csv",
        figures=[f"{stem}.{ext}" for stem in MMFL_FIGURES.values() for ext in ("png", "pdf")],
    log:
        f"{MMFL_LOGS}/summarize.log",
    params:
        cfg=lambda w: cfg_json("seed", "mmfl"),
        stems=" ".join(f"--{name} {stem}" for name, stem in MMFL_FIGURES.items()),
    shell:
        "fairshare mmfl summarize {input.runs} --summary {output.summary} --across-tasks {output.across}"
        " --table2 {output.table2} --table2-md {output.table2_md} --rounds-to-threshold {output.thresholds}"
        " --claims {output.claims} --cfg {params.cfg} +"
        " mmfl figures --summary {output.summary} --allocations {input.alloc} {params.stems}"
        " --cfg {params.cfg} > {log} 2>&1"
