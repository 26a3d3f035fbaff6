# "Trade-off between Payoff and Model Rewards in Shapley-Fair Collaborative ML" (NeurIPS 2022).
# Coalition valuation of every non-empty coalition (2^n - 1; 31 for the paper's five parties; a run: one coalition,
# its mask as the wildcard `mask`), all from one fixed initialisation, runs_per_job coalitions per job (one JSON per
# coalition however they are grouped), then one job assembles the value table. Allocations under the budget scenarios
# and Figure 2 from this run's table and from the authors' stored MNIST table; the claims are checked on both tables'
# allocations. A valuation job's time goes to its benchmark file under logs/, not into its result (results are
# byte-identical).
from fairshare.papers.payoff_flows.experiment import Valuation  # noqa: E402

PF = config["payoff_flows"]
PF_REFERENCE = PF["reference_table"]
PF_RUNS = [{"mask": str(m)} for m in range(1, 1 << len(PF["label_ranges"]))]
PF_VALUATION = "results/payoff_flows/valuation/coalition_{mask}.json"
USED_DATASETS.add(PF["dataset"])

for _job in training_rules("payoff_flows", "payoff_flows_valuate", PF_RUNS):

    rule:
        """Value the coalitions of one job one after another, checkpointing each one's training every epoch."""
        name:
            _job.name
        input:
            lambda w: dataset_file(PF["dataset"]),
        output:
            valuations=[PF_VALUATION.format(**r) for r in _job.runs],
            valuations_check=[check_file(PF_VALUATION.format(**r)) for r in _job.runs],
        log:
            f"logs/payoff_flows/{_job.stem}.log",
        benchmark:
            f"logs/payoff_flows/{_job.stem}.benchmark.tsv"
        wildcard_constraints:
            **dict(_job.constraints),
        params:
            coalitions=lambda w, output, job=_job: pf_coalition_args(
                [r["mask"] for r in job.runs_of(w)], output.valuations
            ),
            cfg=pf_valuation_cfg,
        shell:
            "fairshare payoff-flows valuate --dataset {input} {params.coalitions} --cfg {params.cfg} > {log} 2>&1"


rule payoff_flows_value_table:
    input:
        valuations=[PF_VALUATION.format(**r) for r in PF_RUNS],
        valuations_check=[check_file(PF_VALUATION.format(**r)) for r in PF_RUNS],
    output:
        table="results/payoff_flows/trained/value_table.json",
        table_check=check_file("results/payoff_flows/trained/value_table.json"),
    log:
        "logs/payoff_flows/value_table.log",
    params:
        cfg=pf_valuation_cfg,
    shell:
        "fairshare payoff-flows assemble {input.valuations} --output {output.table} --cfg {params.cfg} > {log} 2>&1"


rule payoff_flows_analyze:
    """Allocations and payoff flows under the budget scenarios, then Figure 2, from one value table (one process)."""
    input:
        # the authors' table is a committed fixture (git keeps it intact); this run's table has a check file
        values=lambda w: (PF_REFERENCE if w.source == "reference" else "results/payoff_flows/trained/value_table.json"),
        values_check=lambda w: (
            [] if w.source == "reference" else check_file("results/payoff_flows/trained/value_table.json")
        ),
    output:
        alloc="results/payoff_flows/{source}/allocations.csv",
        flows="results/payoff_flows/{source}/flows.csv",
        png="figures/payoff_flows/fig2_{source}.png",
        pdf="figures/payoff_flows/fig2_{source}.pdf",
    log:
        "logs/payoff_flows/analyze_{source}.log",
    wildcard_constraints:
        source="trained|reference",
    params:
        cfg=lambda w: cfg_json("seed", "payoff_flows"),
        scenarios=lambda w: "paper" if w.source == "reference" else "config",
        title=pf_figure_title,
    shell:
        "fairshare payoff-flows analyze --values {input.values} --scenarios {params.scenarios}"
        " --experiment {wildcards.source} --allocations {output.alloc} --flows {output.flows} --cfg {params.cfg} +"
        " payoff-flows figure2 --allocations {output.alloc} --flows {output.flows}"
        " --title {params.title} --png {output.png} --pdf {output.pdf} > {log} 2>&1"


rule payoff_flows_claims:
    input:
        reference_values=PF_REFERENCE,
        reference_alloc="results/payoff_flows/reference/allocations.csv",
        reference_flows="results/payoff_flows/reference/flows.csv",
        trained_values="results/payoff_flows/trained/value_table.json",
        trained_values_check=check_file("results/payoff_flows/trained/value_table.json"),
        trained_alloc="results/payoff_flows/trained/allocations.csv",
        trained_flows="results/payoff_flows/trained/flows.csv",
    output:
        claims="results/payoff_flows/claims.csv",
        claims_check=check_file("results/payoff_flows/claims.csv"),
    log:
        "logs/payoff_flows/claims.log",
    shell:
        "fairshare payoff-flows claims"
        " --table reference {input.reference_values} {input.reference_alloc} {input.reference_flows}"
        " --table trained {input.trained_values} {input.trained_alloc} {input.trained_flows}"
        " --output {output.claims} > {log} 2>&1"
