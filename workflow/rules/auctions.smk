# Recruitment auctions (FedFairMMFL paper, Section V): Experiment 5 (Figures 7a, 7b). CPU, seconds.


rule auctions_exp5:
    output:
        "results/auctions/exp5.csv",
    params:
        cfg=lambda w: cfg_json("seed", "auctions"),
    shell:
        "fairshare auctions exp5 --output {output} --cfg {params.cfg}"


rule auctions_claims:
    input:
        "results/auctions/exp5.csv",
    output:
        "results/auctions/claims.csv",
    params:
        cfg=lambda w: cfg_json("seed", "auctions"),
    shell:
        "fairshare auctions claims --exp5 {input} --output {output} --cfg {params.cfg}"


rule auctions_figures:
    input:
        "results/auctions/exp5.csv",
    output:
        [f"figures/auctions/{n}.{x}" for n in ("fig7a", "fig7b") for x in ("png", "pdf")],
    params:
        cfg=lambda w: cfg_json("seed", "auctions"),
    shell:
        "fairshare auctions figures --exp5 {input} --outdir figures/auctions --cfg {params.cfg}"


# Experiment 6: the clients each mechanism recruits train two tasks with FedFairMMFL (one job per mechanism and seed).
AU6 = config["auctions"]["exp6"]
USED_DATASETS.update(AU6["tasks"])
AU6_RUNS = [(m, s) for m in AU6["mechanisms"] for s in range(AU6["seeds"])]


rule auctions_exp6:
    input:
        [dataset_file(t) for t in AU6["tasks"]],
    output:
        "results/auctions/exp6/{mechanism}/seed{seed}.csv",
    params:
        cfg=lambda w: cfg_json("seed", "device", "mmfl", "auctions"),
        datasets=lambda w: " ".join(f"{t}={dataset_file(t)}" for t in AU6["tasks"]),
        checkpoint=lambda w: f"checkpoints/auctions/exp6/{w.mechanism}/seed{w.seed}.pt",
    resources:
        gpu=GPU,
    shell:
        "fairshare auctions exp6 --mechanism {wildcards.mechanism} --seed-index {wildcards.seed} --datasets {params.datasets}"
        " --output {output} --checkpoint {params.checkpoint} --cfg {params.cfg}"


rule auctions_figure7c:
    input:
        [f"results/auctions/exp6/{m}/seed{s}.csv" for m, s in AU6_RUNS],
    output:
        summary="results/auctions/exp6_summary.csv",
        png="figures/auctions/fig7c.png",
        pdf="figures/auctions/fig7c.pdf",
    shell:
        "fairshare auctions figure7c {input} --summary {output.summary} --output figures/auctions/fig7c"
