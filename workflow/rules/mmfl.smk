# "Fair Concurrent Training of Multiple Models in FL": training jobs (every seed of an (experiment, method, alpha), or
# one seed: mmfl.job_granularity), then summaries.
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


def mmfl_job_runs(w):
    """The runs one job trains: every seed of its (experiment, label), or the one seed its wildcards name."""
    seeds = [int(w.seed)] if hasattr(w, "seed") else range(MMFL.experiment(w.experiment).seeds)
    return [MMFL_RUNS[(w.experiment, w.label, s)] for s in seeds]


def mmfl_job_cfg(w):
    """The blocks a run reads, with only its own experiment: editing one experiment reruns only its jobs."""
    block = {**config["mmfl"], "experiments": [e for e in config["mmfl"]["experiments"] if e["name"] == w.experiment]}
    return cfg_file({"seed": config["seed"], "device": config["device"], "mmfl": block})


MMFL_RUN_PARAMS = dict(
    cfg=mmfl_job_cfg,
    method=lambda w: mmfl_job_runs(w)[0].method,
    alpha=lambda w: "" if mmfl_job_runs(w)[0].alpha is None else f"--alpha {mmfl_job_runs(w)[0].alpha!r}",
    seeds=lambda w: [r.seed for r in mmfl_job_runs(w)],
    datasets=lambda w: [f"{t}={dataset_file(t)}" for t in MMFL.experiment(w.experiment).tasks],
    checkpoints=lambda w: [f"{CHECKPOINTS}/mmfl/{r.experiment}/{r.label}/seed{r.seed}.pt" for r in mmfl_job_runs(w)],
)
MMFL_RUN_SHELL = (
    "fairshare mmfl run --experiment {wildcards.experiment} --method {params.method} {params.alpha}"
    " --seed-index {params.seeds} --datasets {params.datasets} --output {output.rows} --allocation {output.alloc}"
    " --checkpoint {params.checkpoints} --cfg {params.cfg} > {log} 2>&1"
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
            **MMFL_RUN_PARAMS,
        shell:
            MMFL_RUN_SHELL

else:
    # One job per (experiment, label) trains its seeds one after another, writing the same per-seed files. A rule's
    # outputs cannot depend on a wildcard, so there is one rule per number of seeds.
    for _seeds in sorted({e.seeds for e in MMFL.experiments}):

        rule:
            """Train every seed of one (experiment, method, alpha), one after another, checkpointing every round."""
            name:
                f"mmfl_run_{_seeds}_seeds"
            input:
                lambda w: [dataset_file(t) for t in MMFL.experiment(w.experiment).tasks],
            output:
                rows=[f"{MMFL_RESULTS}/runs/{{experiment}}/{{label}}/seed{s}.csv" for s in range(_seeds)],
                alloc=[f"{MMFL_RESULTS}/runs/{{experiment}}/{{label}}/seed{s}_alloc.npz" for s in range(_seeds)],
            log:
                f"{MMFL_LOGS}/run_{{experiment}}_{{label}}.log",
            wildcard_constraints:
                experiment="|".join(e.name for e in MMFL.experiments if e.seeds == _seeds),
            resources:
                gpu=GPU,
            params:
                **MMFL_RUN_PARAMS,
            shell:
                MMFL_RUN_SHELL


rule mmfl_summarize:
    """Tidy summary, min/mean/variance across tasks, Table II, rounds to threshold and the claims."""
    input:
        [mmfl_run_file(r, ".csv") for r in MMFL_RUNS.values()],
    output:
        summary=f"{MMFL_RESULTS}/summary.csv",
        across=f"{MMFL_RESULTS}/across_tasks.csv",
        table2=f"{MMFL_RESULTS}/table2.csv",
        table2_md=f"{MMFL_RESULTS}/table2.md",
        thresholds=f"{MMFL_RESULTS}/rounds_to_threshold.csv",
        claims=f"{MMFL_RESULTS}/claims.csv",
    log:
        f"{MMFL_LOGS}/summarize.log",
    params:
        cfg=lambda w: cfg_json("seed", "mmfl"),
    shell:
        "fairshare mmfl summarize {input} --summary {output.summary} --across-tasks {output.across}"
        " --table2 {output.table2} --table2-md {output.table2_md} --rounds-to-threshold {output.thresholds}"
        " --claims {output.claims} --cfg {params.cfg} > {log} 2>&1"


rule mmfl_figures:
    """Figures 2-6: min accuracy, per-task accuracy, variance across tasks, allocation maps (alpha sweep, seed 0)."""
    input:
        summary=f"{MMFL_RESULTS}/summary.csv",
        alloc=[
            mmfl_run_file(r, "_alloc.npz")
            for r in MMFL_RUNS.values()
            if r.experiment == MMFL.alpha_sweep_experiment and r.seed == 0
        ],
    output:
        [f"{stem}.{ext}" for stem in MMFL_FIGURES.values() for ext in ("png", "pdf")],
    log:
        f"{MMFL_LOGS}/figures.log",
    params:
        cfg=lambda w: cfg_json("seed", "mmfl"),
        stems=" ".join(f"--{name} {stem}" for name, stem in MMFL_FIGURES.items()),
    shell:
        "fairshare mmfl figures --summary {input.summary} --allocations {input.alloc} {params.stems}"
        " --cfg {params.cfg} > {log} 2>&1"
