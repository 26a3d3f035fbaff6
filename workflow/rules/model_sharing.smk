# "Model-sharing Games" (Donahue & Kleinberg, AAAI 2021): closed-form, CPU, seconds. See docs/model_sharing.md.
MS_REF = "workflow/reference/model_sharing_printed.yaml"
MS_RESULTS = "results/model_sharing"
MS_FIGURES = "figures/model_sharing"
MS_LOGS = "logs/model_sharing"
MS_TABLES = [f"table{i}" for i in range(1, 6)]  # the keys of MS_REF's tables


rule model_sharing:
    """Tables 1-5 (printed vs exact, all coalitions, stability per partition), Example C.6 and one scorecard row per
    printed number and §2 stability statement; simulated vs closed-form errors (mean estimation and regression);
    the data of the two extra figures (error vs coalition size, stable partitions over (n_small, n_large)); every
    checkable lemma, corollary and theorem (§4 against the Monte Carlo run, §5-§7 and App. C-D exactly); the three
    figures (the paper has none). One process: each step takes a second or less."""
    input:
        MS_REF,
    output:
        cells=expand(f"{MS_RESULTS}/{{t}}.csv", t=MS_TABLES),
        coalitions=expand(f"{MS_RESULTS}/{{t}}_all_coalitions.csv", t=MS_TABLES),
        stability=expand(f"{MS_RESULTS}/{{t}}_stability.csv", t=MS_TABLES),
        report=f"{MS_RESULTS}/appendix_c.json",
        report_check=check_file(f"{MS_RESULTS}/appendix_c.json"),
        core=f"{MS_RESULTS}/appendix_c_core_vs_L.csv",
        printed=f"{MS_RESULTS}/printed_values_claims.csv",
        printed_check=check_file(f"{MS_RESULTS}/printed_values_claims.csv"),
        mc=f"{MS_RESULTS}/monte_carlo.csv",
        sizes=f"{MS_RESULTS}/error_vs_coalition_size.csv",
        phases=f"{MS_RESULTS}/phase_diagram.csv",
        claims=f"{MS_RESULTS}/claims.csv",
        claims_check=check_file(f"{MS_RESULTS}/claims.csv"),
        mc_figure=multiext(f"{MS_FIGURES}/monte_carlo", ".png", ".pdf"),
        sizes_figure=multiext(f"{MS_FIGURES}/error_vs_coalition_size", ".png", ".pdf"),
        phases_figure=multiext(f"{MS_FIGURES}/phase_diagram", ".png", ".pdf"),
    log:
        f"{MS_LOGS}/model_sharing.log",
    params:
        cfg=lambda w: cfg_json("seed", "model_sharing"),
        tables=MS_TABLES,
    shell:
        "fairshare model-sharing paper-numbers --reference {input} --tables {params.tables} --cells {output.cells}"
        " --all-coalitions {output.coalitions} --stability {output.stability} --appendix-c {output.report}"
        " --core-vs-l {output.core} --printed-values {output.printed} --cfg {params.cfg} +"
        " model-sharing monte-carlo --output {output.mc} --cfg {params.cfg} +"
        " model-sharing curves --sizes {output.sizes} --phases {output.phases} --cfg {params.cfg} +"
        " model-sharing claims --monte-carlo {output.mc} --output {output.claims} --cfg {params.cfg} +"
        " model-sharing figures --monte-carlo {output.mc} --sizes {output.sizes} --phases {output.phases}"
        " --monte-carlo-figure {output.mc_figure} --sizes-figure {output.sizes_figure}"
        " --phases-figure {output.phases_figure} > {log} 2>&1"
