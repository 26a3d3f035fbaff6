# "Aequa: Fair Model Rewards in Collaborative Learning via Slimmable Networks": training jobs write one JSON per
# (dataset, partition, method, seed) -- standalone first (the contributions), then FedAvg-FT, CGSV, IAFL, Aequa (and
# Aequa with a lower p_min on quantity-skew partitions, Table 8) -- then tables, claims and figures.
# aequa.job_granularity decides what one job trains: `partition` (every dataset, seed and method of a partition, one
# `aequa run` per dataset joined by `+`: torch starts once per partition, for a local CPU) or `seed` (every method of
# one (dataset, partition, seed): one GPU job each on a cluster). Either way, editing one partition's entry reruns
# that partition's jobs only.
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


def rule_suffix(name):
    """A partition name as part of a rule name (``dir0.5`` -> ``dir0_5``)."""
    return re.sub(r"\W", "_", name)


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
AEQUA_BASE_METHODS = ["standalone", *AEQUA["methods"]]
AEQUA_PMIN_PARTITIONS = [p for p in AEQUA_SCHEMES if len(aequa_methods(p)) > len(AEQUA_BASE_METHODS)]
AEQUA_BASE_PARTITIONS = [p for p in AEQUA_SCHEMES if p not in AEQUA_PMIN_PARTITIONS]


def aequa_outputs(dataset, partition, seeds):
    """Result files of one (dataset, partition), seed by seed, each seed's methods in order."""
    return [
        f"results/aequa/runs/{dataset}/{partition}/{m}/seed{s}.json" for s in seeds for m in aequa_methods(partition)
    ]


def aequa_run_command(dataset, partition, seeds):
    """`aequa run ...` training every method of ``seeds`` of one (dataset, partition), with that partition's --cfg:
    the same command whichever job runs it."""
    methods = aequa_methods(partition)
    runs = [
        f"--run {s} {m} {path} {CHECKPOINTS}/aequa/runs/{dataset}/{partition}/{m}/seed{s}.pt"
        for (s, m), path in zip([(s, m) for s in seeds for m in methods], aequa_outputs(dataset, partition, seeds))
    ]
    return " ".join(
        [
            f"aequa run --dataset {dataset} --dataset-file {dataset_file(dataset)} --partition {partition}",
            *runs,
            f"--cfg {aequa_job_cfg(partition=partition)}",
        ]
    )


if AEQUA_PER_SEED:
    # A rule's outputs cannot vary with a wildcard: partitions with Table 8's extra Aequa run (quantity skew) have the
    # second rule, with one more output.
    for _name, _partitions in (("aequa_run", AEQUA_BASE_PARTITIONS), ("aequa_run_pmin", AEQUA_PMIN_PARTITIONS)):
        if not _partitions:
            continue

        rule:
            """Train every method of one (dataset, partition, seed), checkpointing every round."""
            name:
                _name
            input:
                data=lambda w: dataset_file(w.dataset),
            output:
                [
                    f"results/aequa/runs/{{dataset}}/{{partition}}/{m}/seed{{seed}}.json"
                    for m in aequa_methods(_partitions[0])
                ],
            log:
                f"{AEQUA_LOGS}/runs/{{dataset}}/{{partition}}/seed{{seed}}.log",
            wildcard_constraints:
                dataset="[A-Za-z0-9_]+",
                partition=partitions_regex(_partitions),
                seed=r"\d+",
            resources:
                gpu=GPU,
            params:
                command=lambda w: aequa_run_command(w.dataset, w.partition, [w.seed]),
            shell:
                "fairshare {params.command} > {log} 2>&1"

else:
    for _partition in AEQUA_SCHEMES:

        rule:
            """Train every dataset, seed and method of one partition in one process, checkpointing every round."""
            name:
                f"aequa_run_{rule_suffix(_partition)}"
            input:
                [dataset_file(d) for d in AEQUA["datasets"]],
            output:
                [out for d in AEQUA["datasets"] for out in aequa_outputs(d, _partition, range(AEQUA["seeds"]))],
            log:
                f"{AEQUA_LOGS}/runs/{_partition}.log",
            resources:
                gpu=GPU,
            params:
                commands=lambda w, p=_partition: " + ".join(
                    aequa_run_command(d, p, range(AEQUA["seeds"])) for d in AEQUA["datasets"]
                ),
            shell:
                "fairshare {params.commands} > {log} 2>&1"


rule aequa_summarize:
    """Tidy metrics, Tables 1, 2, 7, 8, 9 and the claims; then accuracy vs width (Figs 1 and 6) and reward vs
    contribution. One process."""
    input:
        AEQUA_RUNS,
    output:
        **{f"{t}_{x}": f"results/aequa/{t}.{x}" for t in AEQUA_TABLES for x in ("csv", "md")},
        summary="results/aequa/summary.csv",
        per_client="results/aequa/per_client.csv",
        curves="results/aequa/width_curves.csv",
        claims="results/aequa/claims.csv",
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
        "fairshare aequa summarize {input} --summary {output.summary} --per-client {output.per_client}"
        " --curves {output.curves} --claims {output.claims} {params.tables} --cfg {params.cfg} +"
        " aequa figures --summary {output.summary} --per-client {output.per_client} --curves {output.curves}"
        " --width-figure {params.width} --scatter-figure {params.scatter} --cfg {params.cfg} > {log} 2>&1"
