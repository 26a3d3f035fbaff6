# "Fair Concurrent Training of Multiple Models in FL": training (a run: one seed of one (experiment, method, alpha);
# runs_per_job of them per job, never two experiments in one job), then summaries.
from fairshare.papers.mmfl.experiment import Settings as MMFLSettings, Training as MMFLTraining

MMFL = MMFLSettings.from_block(config["mmfl"])
MMFL_TRAINING_KEYS = [f.name for f in dataclasses.fields(MMFLTraining)]  # what Exp 6 of the auctions reads too
MMFL_RESULTS = "results/mmfl"
MMFL_LOGS = "logs/mmfl"
# One folder per run: runs/<experiment>/<label>/seed<k>; the label is only a folder name (alpha travels as --alpha).
MMFL_RUNS = {(r.experiment, r.label, r.seed): r for r in MMFL.runs()}
MMFL_FILES = [{"experiment": e, "label": label, "seed": str(seed)} for e, label, seed in MMFL_RUNS]
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


# Never two experiments in one job (`runs_per_job: all`: one job per experiment): on 2 cores the experiments' jobs keep
# both cores busy to the end, where one job of every run was the run's critical path (docs/budgets.md); editing one
# experiment retrains it alone. A run's results are the same whichever job trains it (each run seeds itself).
MMFL_JOBS = training_rules("mmfl", "mmfl_run", MMFL_FILES, together=lambda run: run["experiment"])

for _job in MMFL_JOBS:

    _size = job_size(_job, lambda r: sizes.mmfl_run(config, sizes.experiment_block(config, r["experiment"])))

    rule:
        """Train the runs of one job (one run, or several runs of one experiment: one `mmfl run`, one process),
        checkpointing every round."""
        name:
            _job.name
        input:
            lambda w, job=_job: mmfl_inputs(job.runs_of(w)),
        output:
            rows=[mmfl_run_file(r, ".csv") for r in _job.runs],
            rows_check=[check_file(mmfl_run_file(r, ".csv")) for r in _job.runs],
            alloc=[mmfl_run_file(r, "_alloc.npz") for r in _job.runs],
        log:
            f"{MMFL_LOGS}/{_job.stem}.log",
        wildcard_constraints:
            **dict(_job.constraints),
        priority: longest_first(_size)
        resources:
            **training_resources(_size),
        params:
            commands=lambda w, job=_job: mmfl_commands(job.runs_of(w)),
        shell:
            "fairshare {params.commands} > {log} 2>&1"


rule mmfl_summarize:
    """Tidy summary, min/mean/variance across tasks, Table II, rounds to threshold and the claims; then Figures 2-6:
    min accuracy, per-task accuracy, variance across tasks, allocation maps (alpha sweep, seed 0). One process."""
    input:
        runs=[mmfl_run_file(r, ".csv") for r in MMFL_FILES],
        runs_check=[check_file(mmfl_run_file(r, ".csv")) for r in MMFL_FILES],
        alloc=[
            mmfl_run_file(r, "_alloc.npz")
            for r in MMFL_FILES
            if r["experiment"] == MMFL.alpha_sweep_experiment and r["seed"] == "0"
        ],
    output:
        summary=f"{MMFL_RESULTS}/summary.csv",
        across=f"{MMFL_RESULTS}/across_tasks.csv",
        table2=f"{MMFL_RESULTS}/table2.csv",
        table2_md=f"{MMFL_RESULTS}/table2.md",
        thresholds=f"{MMFL_RESULTS}/rounds_to_threshold.csv",
        claims=f"{MMFL_RESULTS}/claims.csv",
        claims_check=check_file(f"{MMFL_RESULTS}/claims.csv"),
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
