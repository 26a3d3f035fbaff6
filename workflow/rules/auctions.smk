# Recruitment auctions (FedFairMMFL paper, Section V). Experiment 5 (Figures 7a, 7b), measured truthfulness and
# Corollary 10: numpy, seconds of CPU. Experiment 6 (Figure 7c): recruitment files, then FedFairMMFL training.


rule auctions_exp5:
    output:
        "results/auctions/exp5.csv",
    params:
        cfg=lambda w: cfg_json("seed", "auctions"),
    shell:
        "fairshare auctions exp5 --output {output} --cfg {params.cfg}"


rule auctions_properties:
    output:
        truthfulness="results/auctions/truthfulness.csv",
        corollary10="results/auctions/corollary10.csv",
    params:
        cfg=lambda w: cfg_json("seed", "auctions"),
    shell:
        "fairshare auctions properties --truthfulness {output.truthfulness} --corollary10 {output.corollary10} --cfg {params.cfg}"


rule auctions_claims:
    input:
        exp5="results/auctions/exp5.csv",
        truthfulness="results/auctions/truthfulness.csv",
        corollary10="results/auctions/corollary10.csv",
    output:
        "results/auctions/claims.csv",
    params:
        cfg=lambda w: cfg_json("seed", "auctions"),
    shell:
        "fairshare auctions claims --exp5 {input.exp5} --truthfulness {input.truthfulness} --corollary10 {input.corollary10}"
        " --output {output} --cfg {params.cfg}"


rule auctions_figures:
    input:
        "results/auctions/exp5.csv",
    output:
        [f"figures/auctions/{n}.{x}" for n in ("fig7a", "fig7b") for x in ("png", "pdf")],
    params:
        cfg=lambda w: cfg_json("seed", "auctions"),
    shell:
        "fairshare auctions figures --exp5 {input} --outdir figures/auctions --cfg {params.cfg}"


# Experiment 6: each mechanism recruits at B (one JSON per mechanism and seed: winners per task, participation,
# payments, bids), then the recruited clients train two tasks with FedFairMMFL (one job per mechanism and seed).
AU6 = config["auctions"]["exp6"]
USED_DATASETS.update(AU6["tasks"])
AU6_RECRUIT = f"results/auctions/recruitment/B{AU6['budget']:g}"
AU6_RUNS = [(m, s) for m in AU6["mechanisms"] for s in range(AU6["seeds"])]


def exp6_cfg_json():
    """Like cfg_json, but only the exp6 part of the auctions block: editing Exp 5 settings does not retrain Exp 6
    (the recruitment files carry everything else the training needs)."""
    blocks = {k: config[k] for k in ("seed", "device", "mmfl")}
    return shlex.quote(json.dumps({**blocks, "auctions": {"exp6": AU6}}, sort_keys=True))


rule auctions_recruit:
    output:
        [f"{AU6_RECRUIT}/{m}/seed{s}.json" for m, s in AU6_RUNS],
    params:
        cfg=lambda w: cfg_json("seed", "auctions"),
        budget=AU6["budget"],
    shell:
        "fairshare auctions recruit --budget {params.budget} --outputs {output} --cfg {params.cfg}"


rule auctions_exp6:
    input:
        recruitment=f"{AU6_RECRUIT}/{{mechanism}}/seed{{seed}}.json",
        datasets=[dataset_file(t) for t in AU6["tasks"]],
    output:
        "results/auctions/exp6/{mechanism}/seed{seed}.csv",
    params:
        cfg=lambda w: exp6_cfg_json(),
        datasets=lambda w: " ".join(f"{t}={dataset_file(t)}" for t in AU6["tasks"]),
        checkpoint=lambda w: f"checkpoints/auctions/exp6/{w.mechanism}/seed{w.seed}.pt",
    resources:
        gpu=GPU,
    shell:
        "fairshare auctions exp6 --recruitment {input.recruitment} --datasets {params.datasets}"
        " --output {output} --checkpoint {params.checkpoint} --cfg {params.cfg}"


rule auctions_figure7c:
    input:
        [f"results/auctions/exp6/{m}/seed{s}.csv" for m, s in AU6_RUNS],
    output:
        summary="results/auctions/exp6_summary.csv",
        claims="results/auctions/exp6_claims.csv",
        png="figures/auctions/fig7c.png",
        pdf="figures/auctions/fig7c.pdf",
    params:
        cfg=lambda w: shlex.quote(json.dumps({"auctions": {"exp6": AU6}}, sort_keys=True)),
    shell:
        "fairshare auctions figure7c {input} --summary {output.summary} --claims {output.claims} --output figures/auctions/fig7c"
        " --cfg {params.cfg}"
