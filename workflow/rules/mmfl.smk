# "Fair Concurrent Training of Multiple Models in FL": one job per (experiment, method, seed), then summaries.
MMFL = config["mmfl"]
MMFL_RUNS = [(e["name"], m, s) for e in MMFL["experiments"] for m in e["methods"] for s in range(e.get("seeds", MMFL["seeds"]))]
for _e in MMFL["experiments"]:
    USED_DATASETS.update(_e["tasks"])


def mmfl_datasets(experiment):
    tasks = next(e["tasks"] for e in MMFL["experiments"] if e["name"] == experiment)
    return {name: dataset_file(name) for name in tasks}


rule mmfl_run:
    input:
        lambda w: list(mmfl_datasets(w.experiment).values()),
    output:
        rows="results/mmfl/runs/{experiment}/{method}/seed{seed}.csv",
        alloc="results/mmfl/runs/{experiment}/{method}/seed{seed}_alloc.npz",
    params:
        cfg=lambda w: cfg_json("seed", "device", "mmfl"),
        datasets=lambda w: " ".join(f"{k}={v}" for k, v in mmfl_datasets(w.experiment).items()),
        checkpoint=lambda w: f"checkpoints/mmfl/{w.experiment}/{w.method}/seed{w.seed}.pt",
    resources:
        gpu=GPU,
    shell:
        "fairshare mmfl run --experiment {wildcards.experiment} --method {wildcards.method} --seed-index {wildcards.seed}"
        " --datasets {params.datasets} --output {output.rows} --allocation {output.alloc} --checkpoint {params.checkpoint} --cfg {params.cfg}"


rule mmfl_summarize:
    input:
        [f"results/mmfl/runs/{e}/{m}/seed{s}.csv" for e, m, s in MMFL_RUNS],
    output:
        "results/mmfl/summary.csv",
        "results/mmfl/across_tasks.csv",
        "results/mmfl/table2.csv",
        "results/mmfl/table2.md",
        "results/mmfl/rounds_to_threshold.csv",
        "results/mmfl/claims.csv",
    params:
        cfg=lambda w: cfg_json("seed", "mmfl"),
    shell:
        "fairshare mmfl summarize {input} --outdir results/mmfl --cfg {params.cfg}"


rule mmfl_figures:
    input:
        summary="results/mmfl/summary.csv",
        alloc=[f"results/mmfl/runs/{e}/{m}/seed0_alloc.npz" for e, m, s in MMFL_RUNS if e == MMFL["alpha_sweep_experiment"] and s == 0],
    output:
        [f"figures/mmfl/{n}.{x}" for n in ("min_accuracy", "per_task_accuracy", "variance_across_tasks", "allocation_maps") for x in ("png", "pdf")],
    params:
        cfg=lambda w: cfg_json("seed", "mmfl"),
    shell:
        "fairshare mmfl figures --summary {input.summary} --allocations {input.alloc} --outdir figures/mmfl --cfg {params.cfg}"
