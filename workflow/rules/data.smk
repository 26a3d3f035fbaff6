# Datasets (fetch + cache) and the configured partitions.
from fairshare.config import dataset_mirrors
from fairshare.data.datasets import CACHEABLE, resolve_dataset

PROCESSED = config["data"]["processed_dir"]
# Paper rule files add the datasets they train on, so `snakemake raw_data` fetches everything the run needs.
USED_DATASETS = {p["dataset"] for p in config["partitions"]}


def dataset_name(name):
    """The dataset a rule really uses: `name`, or its offline fallback when it cannot be had here."""
    d = config["data"]
    if name in d["stand_in"]["datasets"]:  # smoke profile: built as a stand-in, never replaced by a fallback
        return name
    return resolve_dataset(
        name,
        raw_dir=d["raw_dir"],
        processed_dir=d["processed_dir"],
        mirrors=dataset_mirrors(d, name),
        allow_download=d["allow_download"],
        fallback=d["offline_fallback"],
    )


def dataset_file(name):
    return f"{PROCESSED}/{dataset_name(name)}.npz"


def dataset_caches():
    """Every cache the run uses. `rule all` lists them, so a deleted cache is rebuilt by the plain command, and
    everything computed from it reruns (Snakemake reruns every job downstream of a job it runs)."""
    return sorted({dataset_file(name) for name in USED_DATASETS})


def dataset_content(name):
    """The settings that decide a cache's content: a change rebuilds it. Torchvision datasets have none (their files
    are checked against published MD5s), so editing where they are fetched from rebuilds nothing."""
    keys = {"digits": ["seed"], "synthetic": ["seed", "synthetic"]}.get(name, [])
    if name in config["data"]["stand_in"]["datasets"]:
        keys = ["seed", "stand_in"]
    values = {"seed": config["seed"], "synthetic": config["data"]["synthetic"], "stand_in": config["data"]["stand_in"]}
    return json.dumps({k: values[k] for k in keys}, sort_keys=True)


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
        "data/raw/inventory.json",
    log:
        "logs/data/raw_data.log",
    shell:
        "fairshare data inventory {input} --output {output} > {log} 2>&1"
