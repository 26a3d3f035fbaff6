# "Data Sharing with Endogenous Choices over Differential Privacy Levels": closed form, numpy/scipy, seconds on a CPU.
DP_REF = "workflow/reference/dp_coalitions_printed.yaml"
DP_RESULTS = "results/dp_coalitions"
DP_FIGURES = "figures/dp_coalitions"


rule dp_fig1_intervals:
    input:
        DP_REF,
    output:
        intervals=f"{DP_RESULTS}/fig1_intervals.csv",
        windows=f"{DP_RESULTS}/fig1_windows.csv",
    shell:
        "fairshare dp-coalitions fig1 --reference {input} --intervals {output.intervals} --windows {output.windows}"


rule dp_fig1_plot:
    input:
        ref=DP_REF,
        intervals=f"{DP_RESULTS}/fig1_intervals.csv",
    output:
        multiext(f"{DP_FIGURES}/fig1", ".png", ".pdf"),
    params:
        cfg=lambda w: cfg_json("seed", "dp_coalitions"),
        stem=f"{DP_FIGURES}/fig1",
    shell:
        "fairshare dp-coalitions plot-fig1 --intervals {input.intervals} --reference {input.ref} --stem {params.stem} --cfg {params.cfg}"


rule dp_examples:
    input:
        DP_REF,
    output:
        f"{DP_RESULTS}/worked_examples.csv",
    shell:
        "fairshare dp-coalitions examples --reference {input} --output {output}"


rule dp_pos:
    output:
        f"{DP_RESULTS}/price_of_stability.csv",
    params:
        cfg=lambda w: cfg_json("seed", "dp_coalitions"),
    shell:
        "fairshare dp-coalitions pos --output {output} --cfg {params.cfg}"


rule dp_pos_plot:
    input:
        f"{DP_RESULTS}/price_of_stability.csv",
    output:
        multiext(f"{DP_FIGURES}/price_of_stability", ".png", ".pdf"),
    params:
        stem=f"{DP_FIGURES}/price_of_stability",
    shell:
        "fairshare dp-coalitions plot-pos --pos {input} --stem {params.stem}"


rule dp_claims:
    input:
        ref=DP_REF,
        intervals=f"{DP_RESULTS}/fig1_intervals.csv",
        examples=f"{DP_RESULTS}/worked_examples.csv",
        pos=f"{DP_RESULTS}/price_of_stability.csv",
    output:
        f"{DP_RESULTS}/claims.csv",
    params:
        cfg=lambda w: cfg_json("seed", "dp_coalitions"),
    shell:
        "fairshare dp-coalitions claims --reference {input.ref} --intervals {input.intervals} --examples {input.examples}"
        " --pos {input.pos} --output {output} --cfg {params.cfg}"
