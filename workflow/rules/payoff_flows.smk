# "Trade-off between Payoff and Model Rewards in Shapley-Fair Collaborative ML": valuation (one job per coalition),
# allocations under budgets, Figure 2 from this run's values and from the authors' stored MNIST table.
PF = config["payoff_flows"]
PF_REF = "workflow/reference/payoff_mnist_5parties_v.json"
PF_MASKS = range(1, 1 << len(PF["label_ranges"]))
USED_DATASETS.add(PF["dataset"])


rule payoff_valuate:
    input:
        lambda w: dataset_file(PF["dataset"]),
    output:
        "results/payoff_flows/valuation/coalition_{mask}.json",
    wildcard_constraints:
        mask=r"\d+",
    params:
        cfg=lambda w: cfg_json("seed", "payoff_flows"),
    shell:
        "fairshare payoff-flows valuate --dataset {input} --mask {wildcards.mask} --output {output} --cfg {params.cfg}"


rule payoff_value_table:
    input:
        [f"results/payoff_flows/valuation/coalition_{m}.json" for m in PF_MASKS],
    output:
        "results/payoff_flows/trained/value_table.json",
    params:
        cfg=lambda w: cfg_json("seed", "payoff_flows"),
    shell:
        "fairshare payoff-flows assemble {input} --output {output} --cfg {params.cfg}"


rule payoff_reference_table:
    input:
        PF_REF,
    output:
        "results/payoff_flows/reference/value_table.json",
    shell:
        "cp {input} {output}"


rule payoff_analyze:
    input:
        "results/payoff_flows/{source}/value_table.json",
    output:
        alloc="results/payoff_flows/{source}/allocations.csv",
        flows="results/payoff_flows/{source}/flows.csv",
    wildcard_constraints:
        source="trained|reference",
    params:
        cfg=lambda w: cfg_json("seed", "payoff_flows") if w.source == "trained" else shlex.quote(json.dumps({"payoff_flows": {"budget_scenarios": PAPER_SCENARIOS}})),
    shell:
        "fairshare payoff-flows analyze --values {input} --allocations {output.alloc} --flows {output.flows} --cfg {params.cfg}"


# The reference table always uses the paper's three scenarios (5 parties), whatever the profile's own parties are.
PAPER_SCENARIOS = [{"name": "b = inf", "budgets": None}, {"name": "b = 0", "budgets": [0] * 5}, {"name": "b = 0.3 for [0]", "budgets": [0.3, 0, 0, 0, 0]}]


rule payoff_figure2:
    input:
        alloc="results/payoff_flows/{source}/allocations.csv",
        flows="results/payoff_flows/{source}/flows.csv",
    output:
        png="figures/payoff_flows/fig2_{source}.png",
        pdf="figures/payoff_flows/fig2_{source}.pdf",
    wildcard_constraints:
        source="trained|reference",
    params:
        title=lambda w: shlex.quote("Figure 2 from the authors' stored MNIST values" if w.source == "reference"
                                    else f"Figure 2 from this run's valuation ({dataset_name(PF['dataset'])}, {PF['epochs']} epochs)"),
    shell:
        "fairshare payoff-flows figure2 --allocations {input.alloc} --flows {input.flows} --title {params.title} --output figures/payoff_flows/fig2_{wildcards.source}"


rule payoff_properties:
    input:
        PF_REF,
    output:
        "results/payoff_flows/properties.csv",
    params:
        cfg=lambda w: cfg_json("seed", "payoff_flows"),
    shell:
        "fairshare payoff-flows properties --reference {input} --output {output} --cfg {params.cfg}"


rule payoff_claims:
    input:
        reference="results/payoff_flows/reference/value_table.json",
        trained="results/payoff_flows/trained/value_table.json",
    output:
        "results/payoff_flows/claims.csv",
    params:
        cfg=lambda w: cfg_json("seed", "payoff_flows"),
    shell:
        "fairshare payoff-flows claims --tables reference={input.reference} trained={input.trained} --output {output} --cfg {params.cfg}"
