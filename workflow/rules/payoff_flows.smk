# "Trade-off between Payoff and Model Rewards in Shapley-Fair Collaborative ML" (NeurIPS 2022).
# Coalition valuation: one job per non-empty coalition (2^n - 1; 31 for the paper's five parties), all from one
# fixed initialisation, then one job assembles the value table. Allocations under the budget scenarios, Figure 2
# from this run's table and from the authors' stored MNIST table, the properties suite and the claims table.
PF = config["payoff_flows"]
PF_REFERENCE = PF["reference_table"]
PF_MASKS = range(1, 1 << len(PF["label_ranges"]))
# Only these settings change a coalition's value: editing budgets or the properties suite reruns no training.
PF_VALUATION_KEYS = ("dataset", "label_ranges", "hidden", "epochs", "batch_size", "lr", "nu", "data_mode")
USED_DATASETS.add(PF["dataset"])


def pf_valuation_cfg(wildcards):
    return shlex.quote(json.dumps({"seed": config["seed"], "payoff_flows": {k: PF[k] for k in PF_VALUATION_KEYS}}, sort_keys=True))


rule payoff_flows_valuate:
    input:
        lambda w: dataset_file(PF["dataset"]),
    output:
        "results/payoff_flows/valuation/coalition_{mask}.json",
    wildcard_constraints:
        mask=r"[1-9]\d*",
    params:
        cfg=pf_valuation_cfg,
    shell:
        "fairshare payoff-flows valuate --dataset {input} --mask {wildcards.mask} --output {output} --cfg {params.cfg}"


rule payoff_flows_value_table:
    input:
        [f"results/payoff_flows/valuation/coalition_{m}.json" for m in PF_MASKS],
    output:
        "results/payoff_flows/trained/value_table.json",
    params:
        cfg=pf_valuation_cfg,
    shell:
        "fairshare payoff-flows assemble {input} --output {output} --cfg {params.cfg}"


rule payoff_flows_analyze:
    input:
        lambda w: PF_REFERENCE if w.source == "reference" else "results/payoff_flows/trained/value_table.json",
    output:
        alloc="results/payoff_flows/{source}/allocations.csv",
        flows="results/payoff_flows/{source}/flows.csv",
    wildcard_constraints:
        source="trained|reference",
    params:
        cfg=lambda w: cfg_json("seed", "payoff_flows"),
        scenarios=lambda w: "paper" if w.source == "reference" else "config",
    shell:
        "fairshare payoff-flows analyze --values {input} --scenarios {params.scenarios} --experiment {wildcards.source}"
        " --allocations {output.alloc} --flows {output.flows} --cfg {params.cfg}"


rule payoff_flows_figure2:
    input:
        alloc="results/payoff_flows/{source}/allocations.csv",
        flows="results/payoff_flows/{source}/flows.csv",
    output:
        png="figures/payoff_flows/fig2_{source}.png",
        pdf="figures/payoff_flows/fig2_{source}.pdf",
    wildcard_constraints:
        source="trained|reference",
    params:
        title=lambda w: shlex.quote(
            "Figure 2 from the authors' stored MNIST value table" if w.source == "reference"
            else f"Figure 2 from this run's coalition valuation ({dataset_name(PF['dataset'])}, "
                 f"{PF['epochs']} epoch{'s' if PF['epochs'] != 1 else ''}, profile {config['profile']})"),
        stem=lambda w, output: output.png[:-4],
    shell:
        "fairshare payoff-flows figure2 --allocations {input.alloc} --flows {input.flows} --title {params.title} --output {params.stem}"


rule payoff_flows_properties:
    input:
        reference=PF_REFERENCE,
        trained="results/payoff_flows/trained/value_table.json",
    output:
        "results/payoff_flows/properties.csv",
    params:
        cfg=lambda w: cfg_json("seed", "payoff_flows"),
    shell:
        "fairshare payoff-flows properties --tables reference={input.reference} trained={input.trained} --output {output} --cfg {params.cfg}"


rule payoff_flows_claims:
    input:
        reference=PF_REFERENCE,
        trained="results/payoff_flows/trained/value_table.json",
    output:
        "results/payoff_flows/claims.csv",
    params:
        cfg=lambda w: cfg_json("seed", "payoff_flows"),
    shell:
        "fairshare payoff-flows claims --tables reference={input.reference} trained={input.trained} --output {output} --cfg {params.cfg}"
