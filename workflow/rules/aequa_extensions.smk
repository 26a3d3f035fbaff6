# Aequa extensions: participation rate as the contribution (Sec. 6.4: Table 3, Fig. 2) and training-time rewards
# (Sec. 6.5, Algorithm 2: Figs 3-4). One JSON per (dataset, [partition,] method, seed); as in aequa.smk, one job
# trains every dataset, seed and method of a partition (`partition` granularity) or every method of one seed (`seed`).
# Training-time jobs reuse the main experiments' standalone runs of the same setting as contributions.
AEQUA_PART = AEQUA["participation"]
AEQUA_TT = AEQUA["training_time"]
USED_DATASETS.update(AEQUA_PART["datasets"], AEQUA_TT["datasets"])

AEQUA_PART_RUNS = [
    f"results/aequa/participation/{d}/{m}/seed{s}.json"
    for d in AEQUA_PART["datasets"]
    for m in AEQUA_PART["methods"]
    for s in range(AEQUA_EXT_SEEDS)
]
AEQUA_TT_RUNS = [
    f"results/aequa/training_time/{d}/{p}/{m}/seed{s}.json"
    for d in AEQUA_TT["datasets"]
    for p in AEQUA_TT["partitions"].values()
    for m in AEQUA_TT["methods"]
    for s in range(AEQUA_EXT_SEEDS)
]


def aequa_ext_runs(stem, methods):
    """(seed, method, output) of one extension job: `stem` is the results folder below results/aequa/ (with the
    job's wildcards); the seed stays a wildcard under `seed` granularity."""
    seeds = ["{seed}"] if AEQUA_PER_SEED else range(AEQUA_EXT_SEEDS)
    return [(s, m, f"results/aequa/{stem}/{m}/seed{s}.json") for s in seeds for m in methods]


def aequa_ext_run_args(wildcards, output, stem, methods):
    """`--run SEED METHOD OUTPUT CHECKPOINT` for every output of an extension job (checkpoints mirror the outputs)."""
    args = []
    for (s, m, _), path in zip(aequa_ext_runs(stem, methods), output):
        seed = wildcards.seed if AEQUA_PER_SEED else s
        saved = f"{CHECKPOINTS}/aequa/{stem.format(**dict(wildcards.items()))}/{m}/seed{seed}.pt"
        args.append(f"--run {seed} {m} {path} {saved}")
    return " ".join(args)


AEQUA_EXT_LOG = "seed{seed}.log" if AEQUA_PER_SEED else "all_seeds.log"


def aequa_part_command(dataset, seeds):
    """`aequa-ext participation ...` for every method of ``seeds`` of one dataset."""
    stem = f"participation/{dataset}"
    runs = [
        f"--run {s} {m} results/aequa/{stem}/{m}/seed{s}.json {CHECKPOINTS}/aequa/{stem}/{m}/seed{s}.pt"
        for s in seeds
        for m in AEQUA_PART["methods"]
    ]
    return " ".join(
        [
            f"aequa-ext participation --dataset {dataset} --dataset-file {dataset_file(dataset)}",
            *runs,
            f"--cfg {aequa_job_cfg('participation', partition=AEQUA_PART['partition'])}",
        ]
    )


def aequa_part_files(dataset, seeds):
    return [f"results/aequa/participation/{dataset}/{m}/seed{s}.json" for s in seeds for m in AEQUA_PART["methods"]]


if AEQUA_PER_SEED:

    rule aequa_participation_run:
        """Train the participation runs of one (dataset, seed), checkpointing every round."""
        input:
            data=lambda w: dataset_file(w.dataset),
        output:
            aequa_part_files("{dataset}", ["{seed}"]),
        log:
            f"{AEQUA_LOGS}/participation/{{dataset}}/seed{{seed}}.log",
        wildcard_constraints:
            dataset="[A-Za-z0-9_]+",
            seed=r"\d+",
        resources:
            gpu=GPU,
        params:
            command=lambda w: aequa_part_command(w.dataset, [w.seed]),
        shell:
            "fairshare {params.command} > {log} 2>&1"

else:

    rule aequa_participation_run:
        """Train the participation runs of every dataset and seed in one process, checkpointing every round."""
        input:
            [dataset_file(d) for d in AEQUA_PART["datasets"]],
        output:
            [f for d in AEQUA_PART["datasets"] for f in aequa_part_files(d, range(AEQUA_EXT_SEEDS))],
        log:
            f"{AEQUA_LOGS}/participation/all.log",
        resources:
            gpu=GPU,
        params:
            commands=lambda w: " + ".join(aequa_part_command(d, range(AEQUA_EXT_SEEDS)) for d in AEQUA_PART["datasets"]),
        shell:
            "fairshare {params.commands} > {log} 2>&1"


def aequa_tt_command(dataset, partition, seeds):
    """`aequa-ext training-time ...` for every method of ``seeds`` of one (dataset, partition), with the main
    experiments' standalone runs of that setting as the contributions."""
    stem = f"training_time/{dataset}/{partition}"
    runs = [
        f"--run {s} {m} results/aequa/{stem}/{m}/seed{s}.json {CHECKPOINTS}/aequa/{stem}/{m}/seed{s}.pt"
        for s in seeds
        for m in AEQUA_TT["methods"]
    ]
    standalone = [f"--standalone {s} results/aequa/runs/{dataset}/{partition}/standalone/seed{s}.json" for s in seeds]
    return " ".join(
        [
            f"aequa-ext training-time --dataset {dataset} --dataset-file {dataset_file(dataset)}",
            f"--partition {partition}",
            *runs,
            *standalone,
            f"--cfg {aequa_job_cfg('training_time', partition=partition)}",
        ]
    )


def aequa_tt_files(dataset, partition, seeds, kind):
    """The training-time job's outputs (``kind`` "runs") or the standalone runs it reads ("standalone")."""
    if kind == "standalone":
        return [f"results/aequa/runs/{dataset}/{partition}/standalone/seed{s}.json" for s in seeds]
    stem = f"results/aequa/training_time/{dataset}/{partition}"
    return [f"{stem}/{m}/seed{s}.json" for s in seeds for m in AEQUA_TT["methods"]]


AEQUA_TT_PARTITIONS = list(dict.fromkeys(AEQUA_TT["partitions"].values()))

if AEQUA_PER_SEED:

    rule aequa_training_time_run:
        """Train the training-time runs of one (dataset, partition, seed) with per-round evaluation, checkpointing
        every round."""
        input:
            data=lambda w: dataset_file(w.dataset),
            standalone=aequa_tt_files("{dataset}", "{partition}", ["{seed}"], "standalone"),
        output:
            aequa_tt_files("{dataset}", "{partition}", ["{seed}"], "runs"),
        log:
            f"{AEQUA_LOGS}/training_time/{{dataset}}/{{partition}}/seed{{seed}}.log",
        wildcard_constraints:
            dataset="[A-Za-z0-9_]+",
            partition="[A-Za-z0-9_.]+",
            seed=r"\d+",
        resources:
            gpu=GPU,
        params:
            command=lambda w: aequa_tt_command(w.dataset, w.partition, [w.seed]),
        shell:
            "fairshare {params.command} > {log} 2>&1"

else:
    for _partition in AEQUA_TT_PARTITIONS:

        rule:
            """Train the training-time runs of every dataset and seed of one partition in one process, with
            per-round evaluation, checkpointing every round."""
            name:
                f"aequa_training_time_run_{rule_suffix(_partition)}"
            input:
                data=[dataset_file(d) for d in AEQUA_TT["datasets"]],
                standalone=[
                    f
                    for d in AEQUA_TT["datasets"]
                    for f in aequa_tt_files(d, _partition, range(AEQUA_EXT_SEEDS), "standalone")
                ],
            output:
                [f for d in AEQUA_TT["datasets"] for f in aequa_tt_files(d, _partition, range(AEQUA_EXT_SEEDS), "runs")],
            log:
                f"{AEQUA_LOGS}/training_time/{_partition}.log",
            resources:
                gpu=GPU,
            params:
                commands=lambda w, p=_partition: " + ".join(
                    aequa_tt_command(d, p, range(AEQUA_EXT_SEEDS)) for d in AEQUA_TT["datasets"]
                ),
            shell:
                "fairshare {params.commands} > {log} 2>&1"


# FEMNIST at scale (Sec. 6.6: Table 4, Fig. 5, per-round overhead). FEMNIST (LEAF writers) needs a download and
# LEAF's preprocessing: only profiles that name it use it; the others run the same jobs on a writer-like partition.
AEQUA_SCALE = AEQUA["scale"]
if AEQUA_SCALE["dataset"] == "femnist":
    SCALE_DATA, SCALE_WRITERS = f"{PROCESSED}/femnist.npz", f"{PROCESSED}/femnist_writers.npz"

    rule aequa_femnist_data:
        """Cache LEAF's preprocessed FEMNIST and its writer ids."""
        output:
            data=SCALE_DATA,
            writers=SCALE_WRITERS,
        log:
            f"{AEQUA_LOGS}/femnist_data.log",
        params:
            leaf=AEQUA_SCALE["femnist_leaf_dir"],
        shell:
            "fairshare aequa-ext femnist-data --leaf-dir {params.leaf} --output {output.data} --writers {output.writers} > {log} 2>&1"

else:
    USED_DATASETS.add(AEQUA_SCALE["dataset"])
    SCALE_DATA, SCALE_WRITERS = dataset_file(AEQUA_SCALE["dataset"]), None


def scale_inputs(wildcards):
    inputs = {"data": SCALE_DATA}
    if SCALE_WRITERS:
        inputs["writers"] = SCALE_WRITERS
    return inputs


AEQUA_SCALE_METHODS = ["standalone", "fedavg_ft", "aequa"]


rule aequa_scale_run:
    """Train the scale experiment's runs (every method of every seed, or of one seed), checkpointing every round."""
    input:
        unpack(scale_inputs),
    output:
        [out for _, _, out in aequa_ext_runs("scale", AEQUA_SCALE_METHODS)],
    log:
        f"{AEQUA_LOGS}/scale/{AEQUA_EXT_LOG}",
    wildcard_constraints:
        seed=r"\d+",
    resources:
        gpu=GPU,
    params:
        dataset=AEQUA_SCALE["dataset"],
        cfg=lambda w: aequa_job_cfg("scale"),
        writers=lambda w, input: f"--writers {input.writers}" if "writers" in input.keys() else "",
        runs=lambda w, output: aequa_ext_run_args(w, output, "scale", AEQUA_SCALE_METHODS),
    shell:
        "fairshare aequa-ext scale --dataset {params.dataset} --dataset-file {input.data} {params.writers}"
        " {params.runs} --cfg {params.cfg} > {log} 2>&1"


AEQUA_OVERHEAD = ["timings/aequa/scale_overhead.csv", "timings/aequa/scale_overhead.md"]
TIMINGS.extend(AEQUA_OVERHEAD)


rule aequa_scale_overhead:
    """Seconds per round of FedAvg and Aequa (Sec. 6.6), timed alternately in one process: a measurement of this
    machine, under timings/ (not results/)."""
    input:
        unpack(scale_inputs),
    output:
        csv=AEQUA_OVERHEAD[0],
        md=AEQUA_OVERHEAD[1],
    log:
        f"{AEQUA_LOGS}/scale/overhead.log",
    resources:
        gpu=GPU,
    params:
        dataset=AEQUA_SCALE["dataset"],
        cfg=lambda w: aequa_job_cfg("scale"),
        writers=lambda w, input: f"--writers {input.writers}" if "writers" in input.keys() else "",
        checkpoint=f"{CHECKPOINTS}/aequa/scale/overhead.pt",
    shell:
        "fairshare aequa-ext scale-overhead --dataset {params.dataset} --dataset-file {input.data} {params.writers}"
        " --output {output.csv} --summary {output.md} --checkpoint {params.checkpoint} --cfg {params.cfg} > {log} 2>&1"


rule aequa_extensions_summary:
    """Table 3, its claims and Figure 2 (participation); per-round metrics, claims and Figures 3-4 (training-time
    rewards); Table 4, claims and Figure 5 (scale): one command after another in one process."""
    input:
        participation=AEQUA_PART_RUNS,
        training_time=AEQUA_TT_RUNS,
        scale=[f"results/aequa/scale/{m}/seed{s}.json" for m in AEQUA_SCALE_METHODS for s in range(AEQUA_EXT_SEEDS)],
    output:
        **{
            f"{fig}_{x}": f"figures/aequa/{fig}_training_time.{x}"
            for fig in AEQUA_TT["partitions"]
            for x in ("png", "pdf")
        },
        table3_csv="results/aequa/table3.csv",
        table3_md="results/aequa/table3.md",
        per_client="results/aequa/participation_per_client.csv",
        participation_claims="results/aequa/participation_claims.csv",
        fig2_png="figures/aequa/fig2_participation.png",
        fig2_pdf="figures/aequa/fig2_participation.pdf",
        rounds="results/aequa/training_time_rounds.csv",
        training_time_claims="results/aequa/training_time_claims.csv",
        table4_csv="results/aequa/table4.csv",
        table4_md="results/aequa/table4.md",
        scale_claims="results/aequa/scale_claims.csv",
        curve="results/aequa/scale_width_curve.csv",
        fig5_png="figures/aequa/fig5_scale_width.png",
        fig5_pdf="figures/aequa/fig5_scale_width.pdf",
    log:
        f"{AEQUA_LOGS}/extensions_summary.log",
    params:
        cfg=lambda w: cfg_json("seed", "aequa"),
        fig2=lambda w, output: output.fig2_png[:-4],
        fig5=lambda w, output: output.fig5_png[:-4],
        figures=lambda w, output: " ".join(
            f"--figure {p} {output[f'{fig}_png'][:-4]}" for fig, p in AEQUA_TT["partitions"].items()
        ),
    shell:
        "fairshare aequa-ext participation-summary {input.participation} --table {output.table3_csv}"
        " {output.table3_md} --per-client {output.per_client} --claims {output.participation_claims}"
        " --figure {params.fig2} --cfg {params.cfg} +"
        " aequa-ext training-time-summary {input.training_time} --rounds {output.rounds}"
        " --claims {output.training_time_claims} {params.figures} --cfg {params.cfg} +"
        " aequa-ext scale-summary {input.scale} --table {output.table4_csv} {output.table4_md}"
        " --claims {output.scale_claims} --curve {output.curve} --figure {params.fig5} --cfg {params.cfg} > {log} 2>&1"
