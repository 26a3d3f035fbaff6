# Aequa extensions: participation rate as the contribution (Sec. 6.4: Table 3, Fig. 2) and training-time rewards
# (Sec. 6.5, Algorithm 2: Figs 3-4). One JSON per (dataset, [partition,] method, seed); as in aequa.smk, a run trains
# every method of one (dataset, [partition,] seed), runs_per_job (aequa) of them per job, never two partitions in one.
# Training-time jobs reuse the main experiments' standalone runs of the same setting as contributions.
AEQUA_PART = AEQUA["participation"]
USED_DATASETS.update(AEQUA_PART["datasets"], AEQUA_TT["datasets"])
AEQUA_EXT_RUNS = [str(s) for s in range(AEQUA_EXT_SEEDS)]
AEQUA_PART_SETTINGS = [{"dataset": d, "seed": s} for d in AEQUA_PART["datasets"] for s in AEQUA_EXT_RUNS]
AEQUA_PART_RUNS = [  # the summary's input, in this order: dataset, method, seed
    aequa_run_file("participation", {"dataset": d, "seed": s}, m)
    for d in AEQUA_PART["datasets"]
    for m in AEQUA_PART["methods"]
    for s in AEQUA_EXT_RUNS
]
AEQUA_TT_PARTITIONS = list(dict.fromkeys(AEQUA_TT["partitions"].values()))
AEQUA_TT_SETTINGS = [
    {"dataset": d, "partition": p, "seed": s}
    for p in AEQUA_TT_PARTITIONS
    for d in AEQUA_TT["datasets"]
    for s in AEQUA_EXT_RUNS
]
AEQUA_TT_RUNS = [  # the summary's input, in this order: dataset, partition, method, seed
    aequa_run_file("training_time", {"dataset": d, "partition": p, "seed": s}, m)
    for d in AEQUA_TT["datasets"]
    for p in AEQUA_TT["partitions"].values()
    for m in AEQUA_TT["methods"]
    for s in AEQUA_EXT_RUNS
]

for _job in training_rules("aequa", "aequa_participation_run", AEQUA_PART_SETTINGS):

    _size = job_size(_job, lambda r: sizes.aequa_run(config, r["dataset"]))

    rule:
        """Train the participation runs of one job (one command per dataset joined by `+`, one process),
        checkpointing every round."""
        name:
            _job.name
        input:
            lambda w, job=_job: sorted({dataset_file(r["dataset"]) for r in job.runs_of(w)}),
        output:
            runs=[aequa_run_file("participation", r, m) for r in _job.runs for m in AEQUA_PART["methods"]],
            runs_check=[
                check_file(aequa_run_file("participation", r, m)) for r in _job.runs for m in AEQUA_PART["methods"]
            ],
        log:
            f"{AEQUA_LOGS}/participation/{_job.stem}.log",
        wildcard_constraints:
            **dict(_job.constraints),
        priority: longest_first(_size)
        resources:
            **training_resources(_size),
        params:
            commands=lambda w, job=_job: aequa_participation_commands(job.runs_of(w)),
        shell:
            "fairshare {params.commands} > {log} 2>&1"


for _job in training_rules("aequa", "aequa_training_time_run", AEQUA_TT_SETTINGS, together=lambda r: r["partition"]):

    _size = job_size(_job, lambda r: sizes.aequa_run(config, r["dataset"]))

    rule:
        """Train the training-time runs of one job (one command per (dataset, partition) joined by `+`, one
        process) with per-round evaluation, checkpointing every round."""
        name:
            _job.name
        input:
            data=lambda w, job=_job: sorted({dataset_file(r["dataset"]) for r in job.runs_of(w)}),
            standalone=[aequa_tt_standalone(r) for r in _job.runs],
            standalone_check=[check_file(aequa_tt_standalone(r)) for r in _job.runs],
        output:
            runs=[aequa_run_file("training_time", r, m) for r in _job.runs for m in AEQUA_TT["methods"]],
            runs_check=[
                check_file(aequa_run_file("training_time", r, m)) for r in _job.runs for m in AEQUA_TT["methods"]
            ],
        log:
            f"{AEQUA_LOGS}/training_time/{_job.stem}.log",
        wildcard_constraints:
            **dict(_job.constraints),
        priority: longest_first(_size)
        resources:
            **training_resources(_size),
        params:
            commands=lambda w, job=_job: aequa_tt_commands(job.runs_of(w)),
        shell:
            "fairshare {params.commands} > {log} 2>&1"


# FEMNIST at scale (Sec. 6.6: Table 4, Fig. 5, per-round overhead). FEMNIST (LEAF writers) needs a download and
# LEAF's preprocessing: only profiles that name it use it (the smoke profile: a stand-in LEAF folder); the others run
# the same jobs on a writer-like partition.
AEQUA_SCALE = AEQUA["scale"]
if AEQUA_SCALE["dataset"] == "femnist":
    SCALE_DATA, SCALE_WRITERS = f"{PROCESSED}/femnist.npz", f"{PROCESSED}/femnist_writers.npz"

    localrules:
        aequa_femnist_data,

    rule aequa_femnist_data:
        """Cache LEAF's preprocessed FEMNIST and its writer ids."""
        output:
            data=SCALE_DATA,
            writers=SCALE_WRITERS,
        log:
            f"{AEQUA_LOGS}/femnist_data.log",
        params:
            leaf=AEQUA_SCALE["femnist_leaf_dir"],
            # the smoke profile's stand-in (a random LEAF folder, data.stand_in) instead of LEAF's folder
            stand_in="femnist" in config["data"]["stand_in"].get("datasets", []),
            cfg=lambda w, output: cfg_json("seed", "data"),
        shell:
            "fairshare aequa-ext femnist-data --leaf-dir {params.leaf} --output {output.data} --writers {output.writers}"
            " --cfg {params.cfg} > {log} 2>&1"

else:
    USED_DATASETS.add(AEQUA_SCALE["dataset"])
    SCALE_DATA, SCALE_WRITERS = dataset_file(AEQUA_SCALE["dataset"]), None


AEQUA_SCALE_METHODS = ["standalone", "fedavg_ft", "aequa"]
AEQUA_SCALE_SETTINGS = [{"seed": s} for s in AEQUA_EXT_RUNS]

for _job in training_rules("aequa", "aequa_scale_run", AEQUA_SCALE_SETTINGS):

    _size = job_size(_job, lambda r: sizes.aequa_scale_run(config))

    rule:
        """Train the scale experiment's runs of one job (every method of each seed), checkpointing every round."""
        name:
            _job.name
        input:
            unpack(scale_inputs),
        output:
            runs=[aequa_run_file("scale", r, m) for r in _job.runs for m in AEQUA_SCALE_METHODS],
            runs_check=[check_file(aequa_run_file("scale", r, m)) for r in _job.runs for m in AEQUA_SCALE_METHODS],
        log:
            f"{AEQUA_LOGS}/scale/{_job.stem}.log",
        wildcard_constraints:
            **dict(_job.constraints),
        priority: longest_first(_size)
        resources:
            **training_resources(_size),
        params:
            dataset=AEQUA_SCALE["dataset"],
            cfg=lambda w: aequa_job_cfg("scale"),
            writers=lambda w, input: f"--writers {input.writers}" if "writers" in input.keys() else "",
            runs=lambda w, job=_job: " ".join(aequa_run_args("scale", job.runs_of(w), lambda r: AEQUA_SCALE_METHODS)),
        shell:
            "fairshare aequa-ext scale --dataset {params.dataset} --dataset-file {input.data} {params.writers}"
            " {params.runs} --cfg {params.cfg} > {log} 2>&1"


AEQUA_OVERHEAD = ["timings/aequa/scale_overhead.csv", "timings/aequa/scale_overhead.md"]
if "aequa" in PAPERS_RUN:
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
        participation_check=[check_file(p) for p in AEQUA_PART_RUNS],
        training_time=AEQUA_TT_RUNS,
        training_time_check=[check_file(p) for p in AEQUA_TT_RUNS],
        # the training-time settings' contributions: a setting they cannot measure is not judged on rho (issue 38)
        standalone=[aequa_tt_standalone(r) for r in AEQUA_TT_SETTINGS],
        standalone_check=[check_file(aequa_tt_standalone(r)) for r in AEQUA_TT_SETTINGS],
        scale=[aequa_run_file("scale", {"seed": s}, m) for m in AEQUA_SCALE_METHODS for s in AEQUA_EXT_RUNS],
        scale_check=[
            check_file(aequa_run_file("scale", {"seed": s}, m)) for m in AEQUA_SCALE_METHODS for s in AEQUA_EXT_RUNS
        ],
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
        participation_claims_check=check_file("results/aequa/participation_claims.csv"),
        fig2_png="figures/aequa/fig2_participation.png",
        fig2_pdf="figures/aequa/fig2_participation.pdf",
        rounds="results/aequa/training_time_rounds.csv",
        training_time_claims="results/aequa/training_time_claims.csv",
        training_time_claims_check=check_file("results/aequa/training_time_claims.csv"),
        table4_csv="results/aequa/table4.csv",
        table4_md="results/aequa/table4.md",
        scale_claims="results/aequa/scale_claims.csv",
        scale_claims_check=check_file("results/aequa/scale_claims.csv"),
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
        " --standalone {input.standalone} --claims {output.training_time_claims} {params.figures} --cfg {params.cfg} +"
        " aequa-ext scale-summary {input.scale} --table {output.table4_csv} {output.table4_md}"
        " --claims {output.scale_claims} --curve {output.curve} --figure {params.fig5} --cfg {params.cfg} > {log} 2>&1"
