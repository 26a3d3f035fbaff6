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


rule report_item:
    """Copy one manifest artifact into results/report_items/, flagged for the HTML report with its manifest labels."""
    input:
        lambda w: report_source(REPORT_ENTRIES[w.id]),
    output:
        report(
            "results/report_items/{id}{ext}",
            caption="../report/item.rst",
            category=lambda w: REPORT_ENTRIES[w.id]["paper"],
            labels=lambda w: {"artifact": REPORT_ENTRIES[w.id]["ref"], "id": w.id, "profile": config["profile"]},
        ),
    log:
        "logs/report/item_{id}{ext}.log",
    wildcard_constraints:
        id="|".join(REPORT_ENTRIES) or "none",
        ext=r"\.(png|csv|md)",
    params:
        ref=lambda w: REPORT_ENTRIES[w.id]["ref"],
        paper=lambda w: REPORT_ENTRIES[w.id]["paper"],
        title=lambda w: PAPER_TITLES.get(REPORT_ENTRIES[w.id]["paper"], REPORT_ENTRIES[w.id]["paper"]),
        settings=lambda w: config_summary(REPORT_ENTRIES[w.id]["paper"]),
        source=lambda w: ", ".join(_as_list(REPORT_ENTRIES[w.id]["output"])),
    shell:
        "cp {input} {output} > {log} 2>&1"


def report_items():
    return [f"results/report_items/{i}{Path(report_source(e)).suffix}" for i, e in REPORT_ENTRIES.items()]


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
        configfiles=lambda w: " ".join(f"--configfile {shlex.quote(str(f))}" for f in workflow.overwrite_configfiles),
    shell:
        "snakemake {input.scorecard} --nolock --report {output} {params.configfiles} > {log} 2>&1"
