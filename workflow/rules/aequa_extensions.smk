# Aequa extensions: participation rate as the contribution (Sec. 6.4: Table 3, Fig. 2) and training-time rewards
# (Sec. 6.5, Algorithm 2: Figs 3-4). One job per (dataset, [partition,] method, seed); training-time jobs reuse the
# main experiments' standalone runs of the same setting as contributions.
AEQUA_PART = AEQUA["participation"]
AEQUA_TT = AEQUA["training_time"]
USED_DATASETS.update(AEQUA_PART["datasets"], AEQUA_TT["datasets"])

AEQUA_PART_RUNS = [f"results/aequa/participation/{d}/{m}/seed{s}.json" for d in AEQUA_PART["datasets"]
                   for m in AEQUA_PART["methods"] for s in range(AEQUA_EXT_SEEDS)]
AEQUA_TT_RUNS = [f"results/aequa/training_time/{d}/{p}/{m}/seed{s}.json" for d in AEQUA_TT["datasets"]
                 for p in AEQUA_TT["partitions"].values() for m in AEQUA_TT["methods"] for s in range(AEQUA_EXT_SEEDS)]


rule aequa_participation_run:
    input:
        data=lambda w: dataset_file(w.dataset),
    output:
        "results/aequa/participation/{dataset}/{method}/seed{seed}.json",
    wildcard_constraints:
        dataset="[A-Za-z0-9_]+",
        method="fedavg_ft|cgsv|iafl|aequa",
        seed=r"\d+",
    params:
        cfg=lambda w: aequa_job_cfg("participation", partition=AEQUA_PART["partition"]),
    resources:
        gpu=GPU,
    shell:
        "fairshare aequa-ext participation --dataset {wildcards.dataset} --dataset-file {input.data} --method {wildcards.method}"
        " --seed-index {wildcards.seed} --output {output} --cfg {params.cfg}"


rule aequa_participation_summary:
    input:
        AEQUA_PART_RUNS,
    output:
        "results/aequa/table3.csv",
        "results/aequa/table3.md",
        "results/aequa/participation_per_client.csv",
        "results/aequa/participation_claims.csv",
        "figures/aequa/fig2_participation.png",
        "figures/aequa/fig2_participation.pdf",
    params:
        cfg=lambda w: cfg_json("seed", "aequa"),
    shell:
        "fairshare aequa-ext participation-summary {input} --outdir results/aequa --figure figures/aequa/fig2_participation --cfg {params.cfg}"


rule aequa_training_time_run:
    input:
        data=lambda w: dataset_file(w.dataset),
        standalone="results/aequa/runs/{dataset}/{partition}/standalone/seed{seed}.json",
    output:
        "results/aequa/training_time/{dataset}/{partition}/{method}/seed{seed}.json",
    wildcard_constraints:
        dataset="[A-Za-z0-9_]+",
        partition="[A-Za-z0-9_.]+",
        method="fedavg_ft|cgsv|iafl|aequa|aequa_cgsv|aequa_shapfed",
        seed=r"\d+",
    params:
        cfg=lambda w: aequa_job_cfg("training_time", partition=w.partition),
    resources:
        gpu=GPU,
    shell:
        "fairshare aequa-ext training-time --dataset {wildcards.dataset} --dataset-file {input.data} --partition {wildcards.partition}"
        " --method {wildcards.method} --seed-index {wildcards.seed} --standalone {input.standalone} --output {output} --cfg {params.cfg}"


rule aequa_training_time_summary:
    input:
        AEQUA_TT_RUNS,
    output:
        "results/aequa/training_time_rounds.csv",
        "results/aequa/training_time_claims.csv",
        [f"figures/aequa/{fig}_training_time.{x}" for fig in ("fig3", "fig4") for x in ("png", "pdf")],
    params:
        cfg=lambda w: cfg_json("seed", "aequa"),
    shell:
        "fairshare aequa-ext training-time-summary {input} --outdir results/aequa --figures figures/aequa --cfg {params.cfg}"


# FEMNIST at scale (Sec. 6.6: Table 4, Fig. 5, per-round overhead). FEMNIST (LEAF writers) needs a download and
# LEAF's preprocessing: only profiles that name it use it; the others run the same jobs on a writer-like partition.
AEQUA_SCALE = AEQUA["scale"]
if AEQUA_SCALE["dataset"] == "femnist":
    SCALE_DATA, SCALE_WRITERS = f"{PROCESSED}/femnist.npz", f"{PROCESSED}/femnist_writers.npz"

    rule aequa_femnist_data:
        output:
            data=SCALE_DATA,
            writers=SCALE_WRITERS,
        params:
            leaf=AEQUA_SCALE["femnist_leaf_dir"],
        shell:
            "fairshare aequa-ext femnist-data --leaf-dir {params.leaf} --output {output.data} --writers {output.writers}"

else:
    USED_DATASETS.add(AEQUA_SCALE["dataset"])
    SCALE_DATA, SCALE_WRITERS = dataset_file(AEQUA_SCALE["dataset"]), None


def scale_inputs(wildcards):
    inputs = {"data": SCALE_DATA}
    if SCALE_WRITERS:
        inputs["writers"] = SCALE_WRITERS
    if wildcards.get("method", "standalone") != "standalone":
        inputs["standalone"] = f"results/aequa/scale/standalone/seed{wildcards.seed}.json"
    return inputs


rule aequa_scale_run:
    input:
        unpack(scale_inputs),
    output:
        "results/aequa/scale/{method}/seed{seed}.json",
    wildcard_constraints:
        method="standalone|fedavg_ft|aequa",
        seed=r"\d+",
    params:
        cfg=lambda w: aequa_job_cfg("scale"),
        writers=lambda w, input: f"--writers {input.writers}" if "writers" in input.keys() else "",
        standalone=lambda w, input: f"--standalone {input.standalone}" if "standalone" in input.keys() else "",
    resources:
        gpu=GPU,
    shell:
        "fairshare aequa-ext scale --dataset {AEQUA_SCALE[dataset]} --dataset-file {input.data} {params.writers} --method {wildcards.method}"
        " --seed-index {wildcards.seed} {params.standalone} --output {output} --cfg {params.cfg}"


rule aequa_scale_overhead:
    input:
        unpack(scale_inputs),
    output:
        "results/aequa/scale/overhead.csv",
    params:
        cfg=lambda w: aequa_job_cfg("scale"),
        writers=lambda w, input: f"--writers {input.writers}" if "writers" in input.keys() else "",
    resources:
        gpu=GPU,
    shell:
        "fairshare aequa-ext scale-overhead --dataset {AEQUA_SCALE[dataset]} --dataset-file {input.data} {params.writers}"
        " --output {output} --cfg {params.cfg}"


rule aequa_scale_summary:
    input:
        runs=[f"results/aequa/scale/{m}/seed{s}.json" for m in ("standalone", "fedavg_ft", "aequa") for s in range(AEQUA_EXT_SEEDS)],
        overhead="results/aequa/scale/overhead.csv",
    output:
        "results/aequa/table4.csv",
        "results/aequa/table4.md",
        "results/aequa/scale_claims.csv",
        "results/aequa/scale_width_curve.csv",
        "figures/aequa/fig5_scale_width.png",
        "figures/aequa/fig5_scale_width.pdf",
    params:
        cfg=lambda w: cfg_json("seed", "aequa"),
    shell:
        "fairshare aequa-ext scale-summary {input.runs} --overhead {input.overhead} --outdir results/aequa"
        " --figure figures/aequa/fig5_scale_width --cfg {params.cfg}"
