# The scorecard (every claims CSV, checked by code, in one table + DVC metrics) and the Snakemake HTML report.


report: "../report/workflow.rst"


REPORT_ENTRIES = {e["id"]: e for e in MANIFEST if e["paper"] != "report"}
PAPER_TITLES = {
    "model_sharing": "Donahue & Kleinberg, Model-sharing Games (AAAI 2021)",
    "dp_coalitions": "Data Sharing with Endogenous Choices over Differential Privacy Levels",
    "payoff_flows": "Trade-off between Payoff and Model Rewards in Shapley-Fair Collaborative ML (NeurIPS 2022)",
    "mmfl": "Fair Concurrent Training of Multiple Models in Federated Learning",
    "auctions": "Fair Concurrent Training of Multiple Models in FL: recruitment auctions (Sec. V)",
    "aequa": "Aequa: Fair Model Rewards in Collaborative Learning via Slimmable Networks",
    "partitions": "client partitions shared by the training papers",
}


rule report_items:
    """Every manifest artifact as a report item under results/report_items/: a figure's PNG as it is, a table's
    CSV/Markdown/JSON files as one HTML page (shown in the report, not a download), each flagged for the HTML report
    with its manifest labels, the rule that made it (label "made by"; `fairshare report stable-html` points
    Snakemake's info panel, which would name this copy job, at that rule) and its caption (one job: the items take no
    time). Each caption names the rule and command that made the artifact."""
    input:
        [p for entry in REPORT_ENTRIES.values() for p in report_inputs(entry)],
    output:
        [
            report(
                report_item(item_id),
                caption=report_caption(item_id),
                category=entry["paper"],
                labels={
                    "artifact": entry["ref"],
                    "id": item_id,
                    "made by": f"rule {producer(report_source(entry))['rule']}",
                    "profile": config["profile"],
                },
            )
            for item_id, entry in REPORT_ENTRIES.items()
        ],
    log:
        "logs/report/items.log",
    params:
        spec=lambda w: report_items_spec(),
    shell:
        "fairshare report items {params.spec} > {log} 2>&1"


rule report_captions:
    """Each report item's caption (results/report_captions/<id>.rst): what the paper shows, what to look for
    (workflow/manifest.yaml), the verdict of its scorecard rows counted from this run's scorecard, and the rule and
    command that made it (from Snakemake's job record)."""
    input:
        scorecard="results/scorecard.csv",
        report_items=report_items(),
    output:
        [relative_path(report_caption(item_id)) for item_id in REPORT_ENTRIES],
    log:
        "logs/report/captions.log",
    params:
        spec=lambda w: report_captions_spec(),
    shell:
        "fairshare report captions {params.spec} --scorecard {input.scorecard} > {log} 2>&1"


rule scorecard:
    input:
        claims=claims_files(),
        claims_check=[check_file(p) for p in claims_files()],
        report_items=report_items(),
        reasons="workflow/known_reasons.yaml",
        register="workflow/tuned_settings.yaml",
        paper_effects="workflow/paper_effects.yaml",
        seed_plan="workflow/seed_plan.yaml",
        sensitivity=list(SENSITIVITY_CLAIMS.values()),
        sensitivity_check=[check_file(p) for p in SENSITIVITY_CLAIMS.values()],
        profile_verdicts=list(SENSITIVITY_PROFILE_VERDICTS.values()),
    output:
        csv=report("results/scorecard.csv", category="0 scorecard", labels={"table": "scorecard (CSV)"}),
        md="results/scorecard.md",
        metrics=METRICS,
        paper_metrics=[f"{METRICS_DIR}/papers/{paper}.json" for paper in PAPERS],
        verdicts=VERDICTS,
    log:
        "logs/report/scorecard.log",
    params:
        cfg=lambda w: cfg_json("profile", "smoke"),
        sensitivity=" ".join(f"{i}={p}" for i, p in SENSITIVITY_CLAIMS.items()),
        pending=" ".join(SENSITIVITY_PENDING),
        profile_verdicts=" ".join(f"{p}={f}" for p, f in SENSITIVITY_PROFILE_VERDICTS.items()),
        seeds_run=seeds_run_arguments,
    shell:
        "fairshare report scorecard {input.claims} --csv {output.csv} --markdown {output.md}"
        " --metrics {output.metrics} --paper-metrics {output.paper_metrics} --verdicts {output.verdicts}"
        " --reasons {input.reasons} --register {input.register} --sensitivity {params.sensitivity}"
        " --paper-effects {input.paper_effects} --seed-plan {input.seed_plan} --seeds-run {params.seeds_run}"
        " --pending {params.pending} --profile-verdicts {params.profile_verdicts}"
        " --cfg {params.cfg} > {log} 2>&1"


# Headline accuracies and correlations of the training papers (final round, mean over seeds) beside the scorecard
# counts in `dvc metrics show`: each read from the tidy table its paper's rules wrote.
HEADLINE_TABLES = {
    "mmfl": f"{MMFL_RESULTS}/across_tasks.csv",
    "aequa": "results/aequa/summary.csv",
    "auctions": f"{AU_RESULTS}/exp6_summary.csv",
}
HEADLINE = [f"{METRICS_DIR}/headline/{paper}.json" for paper in HEADLINE_TABLES if paper in PAPERS_RUN]

# The tables `dvc plots show` draws (dvc.yaml `plots`), copied next to the metrics, where git tracks them. Plots read
# from inside `results/` (a folder DVC caches) made `dvc exp run` fail in a fresh clone: DVC looked up that folder's
# listing in a local cache the clone does not have ("failed to load directory ('results',)").
PLOT_SOURCES = {
    "dp_coalitions_fig1_intervals.csv": "results/dp_coalitions/fig1_intervals.csv",
    "model_sharing_error_vs_coalition_size.csv": "results/model_sharing/error_vs_coalition_size.csv",
    "mmfl_across_tasks.csv": f"{MMFL_RESULTS}/across_tasks.csv",
    "aequa_width_curves.csv": "results/aequa/width_curves.csv",
    "payoff_flows_allocations.csv": "results/payoff_flows/trained/allocations.csv",
}
PLOT_DATA = [
    f"{METRICS_DIR}/plots/{name}" for name, source in PLOT_SOURCES.items() if Path(source).parts[1] in PAPERS_RUN
]


rule headline_metrics:
    """One training paper's headline numbers as a small JSON file (DVC metrics)."""
    input:
        lambda w: HEADLINE_TABLES[w.paper],
    output:
        f"{METRICS_DIR}/headline/{{paper}}.json",
    log:
        "logs/report/headline_{paper}.log",
    wildcard_constraints:
        paper="|".join(HEADLINE_TABLES),
    shell:
        "fairshare report headline {wildcards.paper} {input} --output {output} > {log} 2>&1"


rule plot_data:
    """One table that dvc.yaml's plots read, copied from the results where git tracks it."""
    input:
        lambda w: PLOT_SOURCES[w.name],
    output:
        f"{METRICS_DIR}/plots/{{name}}",
    log:
        "logs/report/plot_data_{name}.log",
    wildcard_constraints:
        name="|".join(name.replace(".", "[.]") for name in PLOT_SOURCES),
    shell:
        "(cp {input} {output}.part && mv {output}.part {output}) > {log} 2>&1"


rule verdict_table:
    """One row per training statement, its verdict on the test, default and CPU-scale profiles side by side (this
    run's own column from this run) and the paper profile's column "not run here"."""
    input:
        own=VERDICTS,
        snapshots=[
            f"metrics/verdicts/{p}.csv"
            for p in VERDICT_PROFILES
            if p != config["profile"] and Path(f"metrics/verdicts/{p}.csv").is_file()
        ],
    output:
        md="results/verdict_table.md",
        html=report("results/verdict_table.html", category="0 scorecard", labels={"table": "verdicts by profile"}),
    log:
        "logs/report/verdict_table.log",
    params:
        columns=verdict_columns(),
    shell:
        "fairshare report verdict-table {params.columns} --markdown {output.md} --html {output.html} > {log} 2>&1"


rule html_report:
    """The Snakemake HTML report of this run (every manifest artifact with its caption), as a rule output: a run
    killed while writing it leaves it incomplete, and the next run rebuilds it. `fairshare report stable-html` then
    drops the job start and end times Snakemake embeds, so the same config and results give the same bytes, credits
    each item to the rule that made it (its "made by" label) instead of the copy job report_items, and puts the
    scorecard's counts on the landing page (the rule graph stays under "Workflow")."""
    input:
        scorecard=rules.scorecard.output.csv,
        verdicts=rules.verdict_table.output.html,
        captions=rules.report_captions.output,
    output:
        "results/report.html",
    log:
        "logs/report/html_report.log",
    params:
        # one --configfile with every file, in order (a second --configfile would replace the first), then the
        # --config values, so that the report's Snakemake sees this run's config (its items, its papers)
        configfiles=lambda w: (
            "--configfile " + " ".join(shlex.quote(relative_path(f)) for f in workflow.overwrite_configfiles)
            if workflow.overwrite_configfiles
            else ""
        ),
        config_values=lambda w: (
            "--config "
            + " ".join(shlex.quote(f"{k}={json.dumps(v)}") for k, v in workflow.config_settings.config.items())
            if workflow.config_settings.config
            else ""
        ),
    shell:
        "(snakemake {input.scorecard} {input.verdicts} --nolock --report {output} {params.configfiles}"
        " {params.config_values}"
        " && fairshare report stable-html {output} --scorecard {input.scorecard}) > {log} 2>&1"
