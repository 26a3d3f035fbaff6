# "Data Sharing with Endogenous Choices over Differential Privacy Levels": closed form, numpy/scipy, seconds on a CPU.
# One job runs the paper's commands one after another in one process (joined by `+`: Python and pandas start once).
DP_REF = "workflow/reference/dp_coalitions_printed.yaml"
DP_RESULTS = "results/dp_coalitions"
DP_FIGURES = "figures/dp_coalitions"
DP_LOGS = "logs/dp_coalitions"


rule dp_coalitions:
    """Figure 1's exact step functions (largest equilibrium size per sigma piece) and every stability window; the
    Lemma 3-5 worked examples beside the printed numbers; the price of stability vs n for identical costs (not a
    paper figure; the Theorems 1-4 order checks use it); every scorecard row of the paper; both figures."""
    input:
        DP_REF,
    output:
        intervals=f"{DP_RESULTS}/fig1_intervals.csv",
        windows=f"{DP_RESULTS}/fig1_windows.csv",
        examples=f"{DP_RESULTS}/worked_examples.csv",
        pos=f"{DP_RESULTS}/price_of_stability.csv",
        claims=f"{DP_RESULTS}/claims.csv",
        claims_check=check_file(f"{DP_RESULTS}/claims.csv"),
        fig1=multiext(f"{DP_FIGURES}/fig1", ".png", ".pdf"),
        pos_figure=multiext(f"{DP_FIGURES}/price_of_stability", ".png", ".pdf"),
    log:
        f"{DP_LOGS}/dp_coalitions.log",
    params:
        cfg=lambda w: cfg_json("seed", "dp_coalitions"),
    shell:
        "fairshare dp-coalitions fig1 --reference {input} --intervals {output.intervals} --windows {output.windows} +"
        " dp-coalitions examples --reference {input} --output {output.examples} +"
        " dp-coalitions pos --output {output.pos} --cfg {params.cfg} +"
        " dp-coalitions claims --intervals {output.intervals} --examples {output.examples} --pos {output.pos}"
        " --output {output.claims} --cfg {params.cfg} +"
        " dp-coalitions plot-fig1 --intervals {output.intervals} --reference {input} --output {output.fig1}"
        " --cfg {params.cfg} +"
        " dp-coalitions plot-pos --pos {output.pos} --output {output.pos_figure} > {log} 2>&1"
