# "Aequa: Fair Model Rewards in Collaborative Learning via Slimmable Networks": training jobs write one JSON per
# (dataset, partition, method, seed) -- standalone first (the contributions), then FedAvg-FT, CGSV, IAFL, Aequa (and
# Aequa with a lower p_min on quantity-skew partitions, Table 8) -- then tables, claims and figures.
# aequa.job_granularity decides what one job trains: `setting` (every seed and method of a (dataset, partition): one
# start-up of torch per setting, for a local CPU) or `seed` (every method of one seed: one GPU job each on a cluster).
import re

AEQUA = config["aequa"]
USED_DATASETS.update(AEQUA["datasets"])
AEQUA_SCHEMES = {p["name"]: p["scheme"] for p in AEQUA["partitions"]}
AEQUA_EXT_SEEDS = AEQUA.get("extension_seeds", AEQUA["seeds"])  # participation rate, training-time rewards, scale
AEQUA_LOGS = "logs/aequa"
AEQUA_PER_SEED = AEQUA["job_granularity"] == "seed"


def aequa_methods(partition):
    extra = ["aequa_pmin"] if AEQUA_SCHEMES[partition] == "quantity_skew" and "aequa" in AEQUA["methods"] else []
    return ["standalone", *AEQUA["methods"], *extra]


# Keys that only select jobs, shape tables or configure the extensions: left out of a training job's --cfg, so
# editing them reruns no training (Snakemake's params rerun trigger).
AEQUA_NON_TRAINING_KEYS = (
    "datasets",
    "seeds",
    "extension_seeds",
    "methods",
    "job_granularity",
    "table_partitions",
    "table9_datasets",
    "curve_partition",
    "participation",
    "training_time",
    "scale",
)


def aequa_job_cfg(*extensions, partition=None):
    """--cfg of one training job: seed, device and the aequa keys training reads (plus the named extension blocks).
    With ``partition``, only that partition's entry is passed, so editing another partition reruns none of its jobs.
    """
    keep = {k: v for k, v in AEQUA.items() if k not in AEQUA_NON_TRAINING_KEYS or k in extensions}
    if partition is not None:
        keep["partitions"] = [p for p in AEQUA["partitions"] if p["name"] == partition]
    return cfg_file({"seed": config["seed"], "device": config["device"], "aequa": keep})


def aequa_job_runs(methods):
    """(seed, method, output) of one training job, standalone first within each seed; the seed and the setting stay
    wildcards ("{seed}" under `seed` granularity)."""
    seeds = ["{seed}"] if AEQUA_PER_SEED else range(AEQUA["seeds"])
    return [(s, m, f"results/aequa/runs/{{dataset}}/{{partition}}/{m}/seed{s}.json") for s in seeds for m in methods]


def aequa_run_args(wildcards, output, methods):
    """`--run SEED METHOD OUTPUT CHECKPOINT` for every output of the job (checkpoints under checkpoints/aequa/runs/)."""
    args = []
    for (s, m, _), path in zip(aequa_job_runs(methods), output):
        seed = wildcards.seed if AEQUA_PER_SEED else s
        saved = f"{CHECKPOINTS}/aequa/runs/{wildcards.dataset}/{wildcards.partition}/{m}/seed{seed}.pt"
        args.append(f"--run {seed} {m} {path} {saved}")
    return " ".join(args)


def partitions_regex(names):
    return "|".join(re.escape(n) for n in names) or "(?!)"


AEQUA_RUNS = [
    f"results/aequa/runs/{d}/{p}/{m}/seed{s}.json"
    for d in AEQUA["datasets"]
    for p in AEQUA_SCHEMES
    for m in aequa_methods(p)
    for s in range(AEQUA["seeds"])
]
AEQUA_TABLES = ("table1", "table2", "table7", "table8", "table9")
# Partitions with Table 8's extra Aequa run (quantity skew) get the second rule below, with one more output per seed.
AEQUA_BASE_METHODS = ["standalone", *AEQUA["methods"]]
AEQUA_PMIN_PARTITIONS = [p for p in AEQUA_SCHEMES if len(aequa_methods(p)) > len(AEQUA_BASE_METHODS)]


rule aequa_run:
    """Train every method of one setting (and seed, under `seed` granularity), checkpointing every round."""
    input:
        data=lambda w: dataset_file(w.dataset),
    output:
        [out for _, _, out in aequa_job_runs(AEQUA_BASE_METHODS)],
    log:
        f"{AEQUA_LOGS}/runs/{{dataset}}/{{partition}}/" + ("seed{seed}.log" if AEQUA_PER_SEED else "all_seeds.log"),
    wildcard_constraints:
        dataset="[A-Za-z0-9_]+",
        partition=partitions_regex(set(AEQUA_SCHEMES) - set(AEQUA_PMIN_PARTITIONS)),
        seed=r"\d+",
    resources:
        gpu=GPU,
    params:
        cfg=lambda w: aequa_job_cfg(partition=w.partition),
        runs=lambda w, output: aequa_run_args(w, output, AEQUA_BASE_METHODS),
    shell:
        "fairshare aequa run --dataset {wildcards.dataset} --dataset-file {input.data} --partition {wildcards.partition}"
        " {params.runs} --cfg {params.cfg} > {log} 2>&1"


use rule aequa_run as aequa_run_pmin with:
    output:
        [out for _, _, out in aequa_job_runs([*AEQUA_BASE_METHODS, "aequa_pmin"])],
    wildcard_constraints:
        dataset="[A-Za-z0-9_]+",
        partition=partitions_regex(AEQUA_PMIN_PARTITIONS),
        seed=r"\d+",
    params:
        cfg=lambda w: aequa_job_cfg(partition=w.partition),
        runs=lambda w, output: aequa_run_args(w, output, [*AEQUA_BASE_METHODS, "aequa_pmin"]),


rule aequa_summarize:
    """Tidy metrics, Tables 1, 2, 7, 8, 9 and the claims."""
    input:
        AEQUA_RUNS,
    output:
        **{f"{t}_{x}": f"results/aequa/{t}.{x}" for t in AEQUA_TABLES for x in ("csv", "md")},
        summary="results/aequa/summary.csv",
        per_client="results/aequa/per_client.csv",
        curves="results/aequa/width_curves.csv",
        claims="results/aequa/claims.csv",
    log:
        f"{AEQUA_LOGS}/summarize.log",
    params:
        cfg=lambda w: cfg_json("seed", "aequa"),
        tables=lambda w, output: " ".join(f"--{t} {output[f'{t}_csv']} {output[f'{t}_md']}" for t in AEQUA_TABLES),
    shell:
        "fairshare aequa summarize {input} --summary {output.summary} --per-client {output.per_client}"
        " --curves {output.curves} --claims {output.claims} {params.tables} --cfg {params.cfg} > {log} 2>&1"


rule aequa_figures:
    """Accuracy vs width (Figs 1 and 6) and reward vs contribution."""
    input:
        summary="results/aequa/summary.csv",
        per_client="results/aequa/per_client.csv",
        curves="results/aequa/width_curves.csv",
    output:
        width_png="figures/aequa/accuracy_vs_width.png",
        width_pdf="figures/aequa/accuracy_vs_width.pdf",
        scatter_png="figures/aequa/reward_vs_contribution.png",
        scatter_pdf="figures/aequa/reward_vs_contribution.pdf",
    log:
        f"{AEQUA_LOGS}/figures.log",
    params:
        cfg=lambda w: cfg_json("seed", "aequa"),
        width=lambda w, output: output.width_png[:-4],
        scatter=lambda w, output: output.scatter_png[:-4],
    shell:
        "fairshare aequa figures --summary {input.summary} --per-client {input.per_client} --curves {input.curves}"
        " --width-figure {params.width} --scatter-figure {params.scatter} --cfg {params.cfg} > {log} 2>&1"
