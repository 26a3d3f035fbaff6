# "Trade-off between Payoff and Model Rewards in Shapley-Fair Collaborative ML" (NeurIPS 2022).
# Coalition valuation of every non-empty coalition (2^n - 1; 31 for the paper's five parties), all from one fixed
# initialisation, in payoff_flows.valuation_jobs jobs (coalition m in job (m - 1) mod jobs; one JSON per coalition
# however they are grouped), then one job assembles the value table. Allocations under the budget scenarios and Figure 2
# from this run's table and from the authors' stored MNIST table; the claims are checked on both tables' allocations.
# A valuation job's time goes to its benchmark file under logs/, not into its result (results are byte-identical).
from fairshare.papers.payoff_flows.experiment import Valuation  # noqa: E402

PF = config["payoff_flows"]
PF_REFERENCE = PF["reference_table"]
PF_MASKS = range(1, 1 << len(PF["label_ranges"]))
PF_JOBS = min(PF["valuation_jobs"], len(PF_MASKS))
PF_VALUATION = "results/payoff_flows/valuation/coalition_{}.json"
PF_VALUATION_SHELL = (
    "fairshare payoff-flows valuate --dataset {input} {params.coalitions} --cfg {params.cfg} > {log} 2>&1"
)


def pf_coalition_args(masks, outputs):
    return " ".join(
        f"--coalition {m} {path} {CHECKPOINTS}/payoff_flows/coalition_{m}.pt" for m, path in zip(masks, outputs)
    )


USED_DATASETS.add(PF["dataset"])


def pf_valuation_cfg(wildcards):
    """Only the keys a valuation reads: editing the budget scenarios reruns no training."""
    return cfg_file(
        {"seed": config["seed"], "device": config["device"], "payoff_flows": {k: PF[k] for k in Valuation.KEYS}}
    )


def pf_figure_title(wildcards):
    if wildcards.source == "reference":
        return shlex.quote("Figure 2 from the authors' stored MNIST value table")
    epochs = f"{PF['epochs']} epoch{'s' if PF['epochs'] != 1 else ''}"
    return shlex.quote(
        f"Figure 2 from this run's coalition valuation ({dataset_name(PF['dataset'])}, "
        f"{epochs}, profile {config['profile']})"
    )


if PF_JOBS == len(PF_MASKS):

    rule payoff_flows_valuate:
        """Value one coalition, checkpointing its training every epoch."""
        input:
            lambda w: dataset_file(PF["dataset"]),
        output:
            PF_VALUATION.format("{mask}"),
        log:
            "logs/payoff_flows/valuate_{mask}.log",
        benchmark:
            "logs/payoff_flows/valuate_{mask}.benchmark.tsv"
        wildcard_constraints:
            mask=r"[1-9]\d*",
        params:
            coalitions=lambda w, output: pf_coalition_args([w.mask], output),
            cfg=pf_valuation_cfg,
        shell:
            PF_VALUATION_SHELL

else:
    # A rule's outputs cannot depend on a wildcard, so each job of several coalitions is a rule of its own.
    for _job in range(PF_JOBS):

        rule:
            """Value the coalitions of one job one after another, checkpointing each one's training every epoch."""
            name:
                f"payoff_flows_valuate_{_job}"
            input:
                lambda w: dataset_file(PF["dataset"]),
            output:
                [PF_VALUATION.format(m) for m in PF_MASKS if (m - 1) % PF_JOBS == _job],
            log:
                f"logs/payoff_flows/valuate_job{_job}.log",
            benchmark:
                f"logs/payoff_flows/valuate_job{_job}.benchmark.tsv"
            params:
                coalitions=lambda w, output: pf_coalition_args(
                    [int(Path(p).stem.split("_")[1]) for p in output], output
                ),
                cfg=pf_valuation_cfg,
            shell:
                PF_VALUATION_SHELL


rule payoff_flows_value_table:
    input:
        [PF_VALUATION.format(m) for m in PF_MASKS],
    output:
        "results/payoff_flows/trained/value_table.json",
    log:
        "logs/payoff_flows/value_table.log",
    params:
        cfg=pf_valuation_cfg,
    shell:
        "fairshare payoff-flows assemble {input} --output {output} --cfg {params.cfg} > {log} 2>&1"


rule payoff_flows_analyze:
    """Allocations and payoff flows under the budget scenarios, then Figure 2, from one value table (one process)."""
    input:
        lambda w: (PF_REFERENCE if w.source == "reference" else "results/payoff_flows/trained/value_table.json"),
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
        "fairshare payoff-flows analyze --values {input} --scenarios {params.scenarios}"
        " --experiment {wildcards.source} --allocations {output.alloc} --flows {output.flows} --cfg {params.cfg} +"
        " payoff-flows figure2 --allocations {output.alloc} --flows {output.flows}"
        " --title {params.title} --png {output.png} --pdf {output.pdf} > {log} 2>&1"


rule payoff_flows_claims:
    input:
        reference_values=PF_REFERENCE,
        reference_alloc="results/payoff_flows/reference/allocations.csv",
        reference_flows="results/payoff_flows/reference/flows.csv",
        trained_values="results/payoff_flows/trained/value_table.json",
        trained_alloc="results/payoff_flows/trained/allocations.csv",
        trained_flows="results/payoff_flows/trained/flows.csv",
    output:
        "results/payoff_flows/claims.csv",
    log:
        "logs/payoff_flows/claims.log",
    shell:
        "fairshare payoff-flows claims"
        " --table reference {input.reference_values} {input.reference_alloc} {input.reference_flows}"
        " --table trained {input.trained_values} {input.trained_alloc} {input.trained_flows}"
        " --output {output} > {log} 2>&1"
