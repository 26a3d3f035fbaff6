# The scorecard: every claims CSV the paper rules write, checked by code, in one table (+ DVC metrics).


def claims_files():
    return [p for e in MANIFEST if e["paper"] != "report" for p in _as_list(e["output"]) if Path(p).name.endswith("claims.csv")]


rule scorecard:
    input:
        claims=claims_files(),
        artifacts=[p for p in manifest_outputs() if not p.startswith(("results/scorecard", "metrics/"))],
    output:
        csv="results/scorecard.csv",
        md="results/scorecard.md",
        metrics="metrics/summary.json",
    params:
        cfg=lambda w: cfg_json("profile"),
    shell:
        "fairshare report scorecard {input.claims} --csv {output.csv} --markdown {output.md}"
        " --metrics {output.metrics} --cfg {params.cfg}"
