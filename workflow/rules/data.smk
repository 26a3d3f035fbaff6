# Datasets (fetch + cache) and the configured partitions.
from fairshare.data.datasets import CACHEABLE

PROCESSED = config["data"]["processed_dir"]
# Paper rule files add the datasets they train on, so `snakemake raw_data` fetches everything the run needs.
USED_DATASETS = {p["dataset"] for p in config["partitions"]}


# Downloads run where Snakemake runs (the submit host of a cluster: compute nodes often have no internet), as do
# the inventory of the caches (seconds, no GPU).
localrules:
    dataset,
    raw_data,


rule dataset:
    output:
        f"{PROCESSED}/{{dataset}}.npz",
    log:
        "logs/data/dataset_{dataset}.log",
    wildcard_constraints:
        dataset="|".join(CACHEABLE),
    params:
        content=lambda w: dataset_content(w.dataset),
        # A params function that takes `output` is not compared for reruns (Snakemake treats it as derived from the
        # output): the fetch settings (folders, download switch) reach the command without rebuilding on an edit.
        cfg=lambda w, output: cfg_json("seed", "data"),
    shell:
        "fairshare data build {wildcards.dataset} --output {output} --cfg {params.cfg} > {log} 2>&1"


rule partitions:
    input:
        [dataset_file(p["dataset"]) for p in config["partitions"]],
    output:
        parts=[f"results/partitions/{p['name']}.json" for p in config["partitions"]],
        parts_check=[check_file(f"results/partitions/{p['name']}.json") for p in config["partitions"]],
        summary="results/partitions/summary.csv",
        png="figures/partitions/overview.png",
        pdf="figures/partitions/overview.pdf",
    log:
        "logs/data/partitions.log",
    params:
        cfg=lambda w: cfg_json("seed", "partitions"),
        stem=lambda w, output: output.png[:-4],
    shell:
        "fairshare data partitions --datasets {input} --outputs {output.parts} --summary {output.summary}"
        " --figure {params.stem} --cfg {params.cfg} > {log} 2>&1"


rule raw_data:
    """Every dataset the config uses, fetched and cached (the DVC `data` stage runs this target)."""
    input:
        lambda w: dataset_caches(),
    output:
        inventory="data/raw/inventory.json",
        inventory_check=check_file("data/raw/inventory.json"),
    log:
        "logs/data/raw_data.log",
    shell:
        "fairshare data inventory {input} --output {output.inventory} > {log} 2>&1"
