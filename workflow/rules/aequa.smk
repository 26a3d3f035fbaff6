# "Aequa: Fair Model Rewards in Collaborative Learning via Slimmable Networks": training jobs write one JSON per
# (dataset, partition, method, seed) -- standalone first (the contributions), then FedAvg-FT, CGSV, IAFL, Aequa (and
# Aequa with a lower p_min on quantity-skew partitions, Table 8) -- then tables, claims and figures. A run is one
# (dataset, partition, seed), every method; runs_per_job of them per job, never two partitions in one job (a job's
# --cfg holds its partition's entry alone: editing one partition's entry reruns that partition's jobs only).
AEQUA = config["aequa"]
USED_DATASETS.update(AEQUA["datasets"])
AEQUA_SCHEMES = {p["name"]: p["scheme"] for p in AEQUA["partitions"]}
AEQUA_EXT_SEEDS = AEQUA.get("extension_seeds", AEQUA["seeds"])  # participation rate, training-time rewards, scale
AEQUA_LOGS = "logs/aequa"
# Keys that only select jobs, shape tables or configure the extensions: left out of a training job's --cfg, so
# editing them reruns no training (Snakemake's params rerun trigger).
AEQUA_NON_TRAINING_KEYS = (
    "datasets",
    "seeds",
    "extension_seeds",
    "methods",
    "table_partitions",
    "table9_datasets",
    "curve_partition",
    "verdicts",
    "participation",
    "training_time",
    "scale",
)
AEQUA_TT = AEQUA["training_time"]
# The grid, then the settings whose standalone runs only the training-time rewards read (their contributions).
AEQUA_MAIN = [
    {"dataset": d, "partition": p, "seed": str(s)}
    for p in AEQUA_SCHEMES
    for d in AEQUA["datasets"]
    for s in range(AEQUA["seeds"])
]
AEQUA_MAIN += [
    run
    for p in dict.fromkeys(AEQUA_TT["partitions"].values())
    for d in AEQUA_TT["datasets"]
    for s in range(AEQUA_EXT_SEEDS)
    if (run := {"dataset": d, "partition": p, "seed": str(s)}) not in AEQUA_MAIN
]
AEQUA_RUNS = [  # the summary's input, in this order: dataset, partition, method, seed
    aequa_run_file("runs", {"dataset": d, "partition": p, "seed": str(s)}, m)
    for d in AEQUA["datasets"]
    for p in AEQUA_SCHEMES
    for m in aequa_methods(aequa_shape({"partition": p}))
    for s in range(AEQUA["seeds"])
]
AEQUA_TABLES = ("table1", "table2", "table7", "table8", "table9")

for _job in training_rules("aequa", "aequa_run", AEQUA_MAIN, together=lambda r: r["partition"], shape=aequa_shape):

    _size = job_size(_job, lambda r: sizes.aequa_run(config, r["dataset"]))

    rule:
        """Train every method of the runs of one job (one `aequa run` per dataset joined by `+`, one process),
        checkpointing every round."""
        name:
            _job.name
        input:
            lambda w, job=_job: sorted({dataset_file(r["dataset"]) for r in job.runs_of(w)}),
        output:
            runs=[aequa_run_file("runs", r, m) for r in _job.runs for m in aequa_methods(_job.shape)],
            runs_check=[check_file(aequa_run_file("runs", r, m)) for r in _job.runs for m in aequa_methods(_job.shape)],
        log:
            f"{AEQUA_LOGS}/runs/{_job.stem}.log",
        wildcard_constraints:
            **dict(_job.constraints),
        priority: longest_first(_size)
        resources:
            **training_resources(_size),
        params:
            commands=lambda w, job=_job: aequa_commands(job.runs_of(w)),
        shell:
            "fairshare {params.commands} > {log} 2>&1"


rule aequa_summarize:
    """Tidy metrics, Tables 1, 2, 7, 8, 9 and the claims; then accuracy vs width (Figs 1 and 6) and reward vs
    contribution. One process."""
    input:
        runs=AEQUA_RUNS,
        runs_check=[check_file(p) for p in AEQUA_RUNS],
    output:
        **{f"{t}_{x}": f"results/aequa/{t}.{x}" for t in AEQUA_TABLES for x in ("csv", "md")},
        summary="results/aequa/summary.csv",
        per_client="results/aequa/per_client.csv",
        curves="results/aequa/width_curves.csv",
        claims="results/aequa/claims.csv",
        claims_check=check_file("results/aequa/claims.csv"),
        width_png="figures/aequa/accuracy_vs_width.png",
        width_pdf="figures/aequa/accuracy_vs_width.pdf",
        scatter_png="figures/aequa/reward_vs_contribution.png",
        scatter_pdf="figures/aequa/reward_vs_contribution.pdf",
    log:
        f"{AEQUA_LOGS}/summarize.log",
    params:
        cfg=lambda w: cfg_json("seed", "aequa"),
        tables=lambda w, output: " ".join(f"--{t} {output[f'{t}_csv']} {output[f'{t}_md']}" for t in AEQUA_TABLES),
        width=lambda w, output: output.width_png[:-4],
        scatter=lambda w, output: output.scatter_png[:-4],
    shell:
        "fairshare aequa summarize {input.runs} --summary {output.summary} --per-client {output.per_client}"
        " --curves {output.curves} --claims {output.claims} {params.tables} --cfg {params.cfg} +"
        " aequa figures --summary {output.summary} --per-client {output.per_client} --curves {output.curves}"
        " --width-figure {params.width} --scatter-figure {params.scatter} --cfg {params.cfg} > {log} 2>&1"
