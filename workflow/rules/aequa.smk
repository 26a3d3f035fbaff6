# "Aequa: Fair Model Rewards in Collaborative Learning via Slimmable Networks": one job per
# (dataset, partition, method, seed) -- standalone first (the contributions), then FedAvg-FT, CGSV, IAFL, Aequa
# (and Aequa with a lower p_min on quantity-skew partitions, Table 8) -- then tables, claims and figures.
AEQUA = config["aequa"]
USED_DATASETS.update(AEQUA["datasets"])
AEQUA_SCHEMES = {p["name"]: p["scheme"] for p in AEQUA["partitions"]}
AEQUA_EXT_SEEDS = AEQUA.get("extension_seeds", AEQUA["seeds"])  # participation rate, training-time rewards, scale


def aequa_methods(partition):
    extra = ["aequa_pmin"] if AEQUA_SCHEMES[partition] == "quantity_skew" and "aequa" in AEQUA["methods"] else []
    return ["standalone", *AEQUA["methods"], *extra]


# Keys that only select jobs, shape tables or configure the extensions: left out of a training job's --cfg, so
# editing them reruns no training (Snakemake's params rerun trigger).
AEQUA_NON_TRAINING_KEYS = ("datasets", "seeds", "extension_seeds", "methods", "table_partitions", "table9_datasets", "curve_partition", "claims",
                           "participation", "training_time", "scale")


def aequa_job_cfg(*extensions, partition=None):
    """--cfg of one training job: seed, device and the aequa keys training reads (plus the named extension blocks).
    With ``partition``, only that partition's entry is passed, so editing another partition reruns none of its jobs."""
    keep = {k: v for k, v in AEQUA.items() if k not in AEQUA_NON_TRAINING_KEYS or k in extensions}
    if partition is not None:
        keep["partitions"] = [p for p in AEQUA["partitions"] if p["name"] == partition]
    return shlex.quote(json.dumps({"seed": config["seed"], "device": config["device"], "aequa": keep}, sort_keys=True))


AEQUA_RUNS = [f"results/aequa/runs/{d}/{p}/{m}/seed{s}.json" for d in AEQUA["datasets"] for p in AEQUA_SCHEMES
              for m in aequa_methods(p) for s in range(AEQUA["seeds"])]
AEQUA_TABLES = [f"results/aequa/{t}.{x}" for t in ("table1", "table2", "table7", "table8", "table9") for x in ("csv", "md")]


rule aequa_run:
    input:
        data=lambda w: dataset_file(w.dataset),
        standalone=lambda w: [] if w.method == "standalone" else f"results/aequa/runs/{w.dataset}/{w.partition}/standalone/seed{w.seed}.json",
    output:
        "results/aequa/runs/{dataset}/{partition}/{method}/seed{seed}.json",
    wildcard_constraints:
        dataset="[A-Za-z0-9_]+",
        partition="[A-Za-z0-9_.]+",
        method="standalone|fedavg_ft|cgsv|iafl|aequa|aequa_pmin",
        seed=r"\d+",
    params:
        cfg=lambda w: aequa_job_cfg(partition=w.partition),
        standalone=lambda w, input: f"--standalone {input.standalone}" if input.standalone else "",
    resources:
        gpu=GPU,
    shell:
        "fairshare aequa run --dataset {wildcards.dataset} --dataset-file {input.data} --partition {wildcards.partition}"
        " --method {wildcards.method} --seed-index {wildcards.seed} {params.standalone} --output {output} --cfg {params.cfg}"


rule aequa_summarize:
    input:
        AEQUA_RUNS,
    output:
        "results/aequa/summary.csv",
        "results/aequa/per_client.csv",
        "results/aequa/width_curves.csv",
        "results/aequa/claims.csv",
        AEQUA_TABLES,
    params:
        cfg=lambda w: cfg_json("seed", "aequa"),
    shell:
        "fairshare aequa summarize {input} --outdir results/aequa --cfg {params.cfg}"


rule aequa_figures:
    input:
        summary="results/aequa/summary.csv",
        per_client="results/aequa/per_client.csv",
        curves="results/aequa/width_curves.csv",
    output:
        [f"figures/aequa/{n}.{x}" for n in ("accuracy_vs_width", "reward_vs_contribution") for x in ("png", "pdf")],
    params:
        cfg=lambda w: cfg_json("seed", "aequa"),
    shell:
        "fairshare aequa figures --summary {input.summary} --per-client {input.per_client} --curves {input.curves}"
        " --outdir figures/aequa --cfg {params.cfg}"
