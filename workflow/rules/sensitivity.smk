# Sensitivity reruns (issue 28): each entry of the tuned-settings register (workflow/tuned_settings.yaml) that this
# profile runs (fairshare.sensitivity.applies) recomputes the claims its setting affects with the setting's rerun
# value, under results/sensitivity/<id>/ only: it retrains just the runs the setting changes (Aequa) and reuses the
# main run's other results and data files; the scorecard puts its verdicts in the `sensitivity` column.
from fairshare import sensitivity as tuned  # noqa: E402

TUNED = tuned.load_register(Path(workflow.basedir, "workflow", "tuned_settings.yaml"), config=config)
SENSITIVITY_ROOT = "results/sensitivity"
SENSITIVITY_CLAIMS = {}  # entry id -> its rerun's claims CSV, read by rule scorecard


for _entry in [e for e in TUNED if tuned.applies(e, config)]:
    _root = f"{SENSITIVITY_ROOT}/{_entry.id}"
    if _entry.kind == "aequa":
        _pairs = tuned.aequa_rerun(_entry, AEQUA_RUNS, _root)
        SENSITIVITY_CLAIMS[_entry.id] = f"{_root}/aequa/claims.csv"

        rule:
            """Retrain the Aequa runs a tuned setting changes with its rerun value (the main run's standalone runs
            give the contributions unless standalone is retrained), then the main experiments' tables and claims
            from those runs and the main run's others: one process."""
            name:
                f"sensitivity_{_entry.id}"
            input:
                runs=AEQUA_RUNS,
                data=[dataset_file(d) for d in _entry.rerun["datasets"]],
            output:
                runs=[new for _, new in _pairs],
                tables=[f"{_root}/aequa/{t}.{x}" for t in AEQUA_TABLES for x in ("csv", "md")],
                summary=f"{_root}/aequa/summary.csv",
                per_client=f"{_root}/aequa/per_client.csv",
                curves=f"{_root}/aequa/width_curves.csv",
                claims=f"{_root}/aequa/claims.csv",
                claims_check=check_file(f"{_root}/aequa/claims.csv"),
            log:
                f"logs/sensitivity/{_entry.id}.log",
            params:
                train=lambda w, e=_entry, pairs=_pairs: " + ".join(
                    tuned.aequa_commands(
                        pairs,
                        {d: dataset_file(d) for d in e.rerun["datasets"]},
                        cfg_file(
                            {
                                "seed": config["seed"],
                                "device": config["device"],
                                **tuned.rerun_blocks(config, e, "aequa"),
                            }
                        ),
                        f"{CHECKPOINTS}/sensitivity",
                    )
                ),
                runs=lambda w, pairs=_pairs: " ".join(tuned.rerun_inputs(pairs, AEQUA_RUNS)),
                tables=lambda w, root=_root: " ".join(
                    f"--{t} {root}/aequa/{t}.csv {root}/aequa/{t}.md" for t in AEQUA_TABLES
                ),
                cfg=lambda w: cfg_json("seed", "aequa"),  # the main run's: row texts stay those of the main rows
            shell:
                "fairshare {params.train} + aequa summarize {params.runs} --summary {output.summary}"
                " --per-client {output.per_client} --curves {output.curves} --claims {output.claims}"
                " {params.tables} --cfg {params.cfg} > {log} 2>&1"

    elif _entry.kind == "auctions_exp5":
        SENSITIVITY_CLAIMS[_entry.id] = f"{_root}/auctions/claims.csv"

        rule:
            """Experiment 5 with a tuned setting at its rerun value, and Section V's claims from it (the main run's
            truthfulness and Corollary 10 results, which the setting does not change): one process."""
            name:
                f"sensitivity_{_entry.id}"
            input:
                truthfulness=f"{AU_RESULTS}/truthfulness.csv",
                corollary10=f"{AU_RESULTS}/corollary10.csv",
            output:
                exp5=f"{_root}/auctions/exp5.csv",
                claims=f"{_root}/auctions/claims.csv",
                claims_check=check_file(f"{_root}/auctions/claims.csv"),
            log:
                f"logs/sensitivity/{_entry.id}.log",
            params:
                cfg=lambda w, e=_entry: cfg_file({"seed": config["seed"], **tuned.rerun_blocks(config, e, "auctions")}),
            shell:
                "fairshare auctions exp5 --output {output.exp5} --cfg {params.cfg} +"
                " auctions claims --exp5 {output.exp5} --truthfulness {input.truthfulness}"
                " --corollary10 {input.corollary10} --output {output.claims} --cfg {params.cfg} > {log} 2>&1"

    elif _entry.kind == "auctions_exp6":
        SENSITIVITY_CLAIMS[_entry.id] = f"{_root}/auctions/exp6_claims.csv"

        rule:
            """Figure 7c's claims from the main run's Exp 6 runs with a tuned setting at its rerun value (no
            training)."""
            name:
                f"sensitivity_{_entry.id}"
            input:
                runs=[exp6_file(f"{AU_RESULTS}/exp6", r, ".csv") for r in AU6_RUNS],
                runs_check=[check_file(exp6_file(f"{AU_RESULTS}/exp6", r, ".csv")) for r in AU6_RUNS],
            output:
                summary=f"{_root}/auctions/exp6_summary.csv",
                claims=f"{_root}/auctions/exp6_claims.csv",
                claims_check=check_file(f"{_root}/auctions/exp6_claims.csv"),
                png=f"{_root}/auctions/fig7c.png",
                pdf=f"{_root}/auctions/fig7c.pdf",
            log:
                f"logs/sensitivity/{_entry.id}.log",
            params:
                cfg=lambda w, e=_entry: cfg_file(tuned.rerun_blocks(config, e, "auctions")),
                stem=lambda w, output: figure_stem(output.png),
            shell:
                "fairshare auctions figure7c {input.runs} --summary {output.summary} --claims {output.claims}"
                " --output {params.stem} --cfg {params.cfg} > {log} 2>&1"
