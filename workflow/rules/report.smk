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


def config_summary(paper):
    """The scalar settings of a paper's config block (its seeds, rounds, epochs, dataset...), for the caption."""
    block = config.get(paper)
    if not isinstance(block, dict):
        return f"{len(block or [])} configured entries"
    items = [f"{k}={v}" for k, v in sorted(block.items()) if isinstance(v, (str, int, float, bool))]
    text = ", ".join(items)
    return text if len(text) <= 400 else text[:397] + "..."


def claims_files():
    return [p for e in REPORT_ENTRIES.values() for p in _as_list(e["output"]) if Path(p).name.endswith("claims.csv")]


def report_source(entry):
    """The file shown in the HTML report for a manifest entry: its PNG for figures, its first Markdown/CSV table."""
    outputs = _as_list(entry["output"])
    for suffix in ((".png",) if entry["kind"] == "figure" else (".md", ".csv")) + (".png", ".csv", ".md"):
        for p in outputs:
            if p.endswith(suffix):
                return p
    return outputs[0]


def report_item(item_id):
    return f"results/report_items/{item_id}{Path(report_source(REPORT_ENTRIES[item_id])).suffix}"


def report_caption(item_id):
    """The item's caption (paper, artifact, configuration, files), written where Snakemake's report reads it."""
    entry = REPORT_ENTRIES[item_id]
    text = (
        f"**{entry['ref']}** of *{PAPER_TITLES.get(entry['paper'], entry['paper'])}*.\n\n"
        f"Profile ``{config['profile']}``, root seed {config['seed']}; settings of this paper's config block: "
        f"{config_summary(entry['paper'])}. Files: ``{', '.join(_as_list(entry['output']))}`` (manifest id "
        f"``{item_id}``). The scorecard category lists which of this paper's numbers and claims reproduce.\n"
    )
    # Snakemake renders captions as Jinja templates: the text is shown as it is.
    return str(Path(content_file(f"{{% raw %}}{text}{{% endraw %}}", "report-captions", ".rst")).resolve())


rule report_items:
    """Copy every manifest artifact into results/report_items/, each flagged for the HTML report with its manifest
    labels and its own caption (one job: the copies take no time)."""
    input:
        [report_source(entry) for entry in REPORT_ENTRIES.values()],
    output:
        [
            report(
                report_item(item_id),
                caption=report_caption(item_id),
                category=entry["paper"],
                labels={"artifact": entry["ref"], "id": item_id, "profile": config["profile"]},
            )
            for item_id, entry in REPORT_ENTRIES.items()
        ],
    log:
        "logs/report/items.log",
    params:
        pairs=lambda w, input, output: " ".join(f"{i} {o}" for i, o in zip(input, output)),
    shell:
        'set -- {params.pairs}; while [ "$#" -gt 0 ]; do cp "$1" "$2"; shift 2; done > {log} 2>&1'


def report_items():
    return [report_item(item_id) for item_id in REPORT_ENTRIES]


rule scorecard:
    input:
        claims=claims_files(),
        report_items=report_items(),
    output:
        csv=report("results/scorecard.csv", category="0 scorecard", labels={"table": "scorecard (CSV)"}),
        md="results/scorecard.md",
        metrics=METRICS,
        paper_metrics=[f"{METRICS_DIR}/papers/{paper}.json" for paper in PAPERS],
    log:
        "logs/report/scorecard.log",
    params:
        cfg=lambda w: cfg_json("profile", "smoke"),
    shell:
        "fairshare report scorecard {input.claims} --csv {output.csv} --markdown {output.md}"
        " --metrics {output.metrics} --paper-metrics {output.paper_metrics} --cfg {params.cfg} > {log} 2>&1"


rule html_report:
    """The Snakemake HTML report of this run (every manifest artifact with its caption), as a rule output: a run
    killed while writing it leaves it incomplete, and the next run rebuilds it."""
    input:
        scorecard=rules.scorecard.output.csv,
    output:
        "results/report.html",
    log:
        "logs/report/html_report.log",
    params:
        # one --configfile with every file, in order (a second --configfile would replace the first)
        configfiles=lambda w: (
            "--configfile " + " ".join(shlex.quote(relative_path(f)) for f in workflow.overwrite_configfiles)
            if workflow.overwrite_configfiles
            else ""
        ),
    shell:
        "snakemake {input.scorecard} --nolock --report {output} {params.configfiles} > {log} 2>&1"
