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
