# "Model-sharing Games" (Donahue & Kleinberg, AAAI 2021): closed-form, CPU, seconds. See docs/model_sharing.md.
MS_REF = "workflow/reference/model_sharing_printed.yaml"
MS_TABLES = [f"table{i}" for i in range(1, 6)]


rule model_sharing_paper_numbers:
    """Tables 1-5 (printed vs exact, all coalitions, stability per partition), Example C.6, and one scorecard row per
    printed number and §2 stability statement; one process because each step takes well under a second."""
    input:
        MS_REF,
    output:
        tables=[f"results/model_sharing/{t}{suffix}.csv" for t in MS_TABLES for suffix in ("", "_all_coalitions", "_stability")],
        report="results/model_sharing/appendix_c.json",
        core="results/model_sharing/appendix_c_core_vs_L.csv",
        printed="results/model_sharing/printed_values_claims.csv",
    params:
        cfg=lambda w: cfg_json("seed", "model_sharing"),
    shell:
        "fairshare model-sharing paper-numbers --reference {input} --outdir results/model_sharing --appendix-c {output.report}"
        " --core-vs-l {output.core} --printed-values {output.printed} --cfg {params.cfg}"


rule model_sharing_claims:
    output:
        "results/model_sharing/claims.csv",
    params:
        cfg=lambda w: cfg_json("seed", "model_sharing"),
    shell:
        "fairshare model-sharing claims --output {output} --cfg {params.cfg}"


rule model_sharing_monte_carlo:
    output:
        "results/model_sharing/monte_carlo.csv",
    params:
        cfg=lambda w: cfg_json("seed", "model_sharing"),
    shell:
        "fairshare model-sharing monte-carlo --output {output} --cfg {params.cfg}"


rule model_sharing_curves:
    output:
        sizes="results/model_sharing/error_vs_coalition_size.csv",
        phases="results/model_sharing/phase_diagram.csv",
    params:
        cfg=lambda w: cfg_json("seed", "model_sharing"),
    shell:
        "fairshare model-sharing curves --sizes {output.sizes} --phases {output.phases} --cfg {params.cfg}"


rule model_sharing_figures:
    input:
        mc="results/model_sharing/monte_carlo.csv",
        sizes="results/model_sharing/error_vs_coalition_size.csv",
        phases="results/model_sharing/phase_diagram.csv",
    output:
        [f"figures/model_sharing/{name}.{ext}" for name in ("monte_carlo", "error_vs_coalition_size", "phase_diagram") for ext in ("png", "pdf")],
    shell:
        "fairshare model-sharing figures --monte-carlo {input.mc} --sizes {input.sizes} --phases {input.phases} --outdir figures/model_sharing"
