# "Data Sharing with Endogenous Choices over Differential Privacy Levels": closed-form, CPU, seconds.
DP_REF = "workflow/reference/dp_coalitions_printed.yaml"


rule dp_fig1_intervals:
    input:
        DP_REF,
    output:
        intervals="results/dp_coalitions/fig1_intervals.csv",
        windows="results/dp_coalitions/fig1_windows.csv",
    shell:
        "fairshare dp-coalitions fig1 --reference {input} --intervals {output.intervals} --windows {output.windows}"


rule dp_examples:
    input:
        DP_REF,
    output:
        "results/dp_coalitions/worked_examples.csv",
    shell:
        "fairshare dp-coalitions examples --reference {input} --output {output}"


rule dp_pos:
    output:
        "results/dp_coalitions/price_of_stability.csv",
    params:
        cfg=lambda w: cfg_json("seed", "dp_coalitions"),
    shell:
        "fairshare dp-coalitions pos --output {output} --cfg {params.cfg}"


rule dp_claims:
    input:
        pos="results/dp_coalitions/price_of_stability.csv",
        examples="results/dp_coalitions/worked_examples.csv",
    output:
        "results/dp_coalitions/claims.csv",
    params:
        cfg=lambda w: cfg_json("seed", "dp_coalitions"),
    shell:
        "fairshare dp-coalitions claims --pos {input.pos} --examples {input.examples} --output {output} --cfg {params.cfg}"


rule dp_figures:
    input:
        ref=DP_REF,
        intervals="results/dp_coalitions/fig1_intervals.csv",
        pos="results/dp_coalitions/price_of_stability.csv",
    output:
        [f"figures/dp_coalitions/{name}.{ext}" for name in ("fig1", "price_of_stability") for ext in ("png", "pdf")],
    shell:
        "fairshare dp-coalitions figures --reference {input.ref} --intervals {input.intervals} --pos {input.pos} --outdir figures/dp_coalitions"
