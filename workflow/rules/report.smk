# The scorecard (every claims CSV, checked by code, in one table + DVC metrics) and the Snakemake HTML report.


report: "../report/workflow.rst"


REPORT_ENTRIES = {e["id"]: e for e in MANIFEST if e["paper"] != "report"}


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
    log:
        "logs/report/scorecard.log",
    params:
        cfg=lambda w: cfg_json("profile"),
    shell:
        "fairshare report scorecard {input.claims} --csv {output.csv} --markdown {output.md}"
        " --metrics {output.metrics} --cfg {params.cfg} > {log} 2>&1"


onsuccess:
    # After a complete run, render the HTML report (results/report.html) from the same config files.
    if all(Path(p).is_file() for p in manifest_outputs()) and not workflow.dryrun:
        configfiles = " ".join(f"--configfile {shlex.quote(str(f))}" for f in workflow.overwrite_configfiles)
        shell(
            f"snakemake --nolock --report results/report.html {configfiles} > .snakemake/report.log 2>&1"
            " || echo 'HTML report failed: see .snakemake/report.log'"
        )
