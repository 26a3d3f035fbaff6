# "Data Sharing with Endogenous Choices over Differential Privacy Levels": closed form, numpy/scipy, seconds on a CPU.
DP_REF = "workflow/reference/dp_coalitions_printed.yaml"
DP_RESULTS = "results/dp_coalitions"
DP_FIGURES = "figures/dp_coalitions"
DP_LOGS = "logs/dp_coalitions"


rule dp_fig1_intervals:
    """Figure 1's exact step functions (largest equilibrium size per sigma piece) and every stability window."""
    input:
        DP_REF,
    output:
        intervals=f"{DP_RESULTS}/fig1_intervals.csv",
        windows=f"{DP_RESULTS}/fig1_windows.csv",
    log:
        f"{DP_LOGS}/fig1_intervals.log",
    shell:
        "fairshare dp-coalitions fig1 --reference {input} --intervals {output.intervals} --windows {output.windows}"
        " > {log} 2>&1"


rule dp_fig1_plot:
    input:
        ref=DP_REF,
        intervals=f"{DP_RESULTS}/fig1_intervals.csv",
    output:
        multiext(f"{DP_FIGURES}/fig1", ".png", ".pdf"),
    log:
        f"{DP_LOGS}/fig1_plot.log",
    params:
        cfg=lambda w: cfg_json("seed", "dp_coalitions"),
    shell:
        "fairshare dp-coalitions plot-fig1 --intervals {input.intervals} --reference {input.ref} --output {output}"
        " --cfg {params.cfg} > {log} 2>&1"


rule dp_examples:
    """The Lemma 3-5 worked examples recomputed beside the printed numbers."""
    input:
        DP_REF,
    output:
        f"{DP_RESULTS}/worked_examples.csv",
    log:
        f"{DP_LOGS}/examples.log",
    shell:
        "fairshare dp-coalitions examples --reference {input} --output {output} > {log} 2>&1"


rule dp_pos:
    """Price of stability vs n for identical costs (not a paper figure; the Theorems 1-4 order checks use it)."""
    output:
        f"{DP_RESULTS}/price_of_stability.csv",
    log:
        f"{DP_LOGS}/pos.log",
    params:
        cfg=lambda w: cfg_json("seed", "dp_coalitions"),
    shell:
        "fairshare dp-coalitions pos --output {output} --cfg {params.cfg} > {log} 2>&1"


rule dp_pos_plot:
    input:
        f"{DP_RESULTS}/price_of_stability.csv",
    output:
        multiext(f"{DP_FIGURES}/price_of_stability", ".png", ".pdf"),
    log:
        f"{DP_LOGS}/pos_plot.log",
    shell:
        "fairshare dp-coalitions plot-pos --pos {input} --output {output} > {log} 2>&1"


rule dp_claims:
    """Every scorecard row of the paper: statement checks, worked examples, Figure 1 and Theorems 1-4."""
    input:
        intervals=f"{DP_RESULTS}/fig1_intervals.csv",
        examples=f"{DP_RESULTS}/worked_examples.csv",
        pos=f"{DP_RESULTS}/price_of_stability.csv",
    output:
        f"{DP_RESULTS}/claims.csv",
    log:
        f"{DP_LOGS}/claims.log",
    params:
        cfg=lambda w: cfg_json("seed", "dp_coalitions"),
    shell:
        "fairshare dp-coalitions claims --intervals {input.intervals}"
        " --examples {input.examples} --pos {input.pos} --output {output} --cfg {params.cfg} > {log} 2>&1"
