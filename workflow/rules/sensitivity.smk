# Sensitivity reruns (issue 28): each entry of the tuned-settings register (workflow/tuned_settings.yaml) that this
# profile runs (fairshare.pipeline.sensitivity.applies) recomputes the claims its setting affects with the setting's
# rerun value, under results/sensitivity/<id>/ only: it retrains just the runs the setting changes (Aequa) and reuses the
# main run's other results and data files; the scorecard puts its verdicts in the `sensitivity` column.
from fairshare.pipeline import sensitivity as tuned  # noqa: E402
from fairshare.pipeline.config import load_config  # noqa: E402
from fairshare.pipeline.sensitivity_extensions import Layout, extension_job, extension_plan  # noqa: E402

# Every path the register names must exist in config/config.yaml (other profiles may replace a block, e.g. a per-dataset
# p_min by one number: that profile then runs no rerun for it).
try:
    TUNED = tuned.load_register(
        Path(workflow.basedir, "workflow", "tuned_settings.yaml"),
        config=load_config(Path(workflow.basedir, "config", "config.yaml")),
    )
except (tuned.RegisterError, ConfigError) as _err:
    sys.exit(f"workflow/tuned_settings.yaml: {_err}")
SENSITIVITY_ROOT = "results/sensitivity"
SENSITIVITY_CLAIMS = {}  # entry id -> its rerun's claims CSV, read by rule scorecard
SENSITIVITY_PENDING = [e.id for e in TUNED if tuned.pending_here(e, config)]  # rows read "rerun pending"
# The committed verdicts of the profiles whose main run trains a pending `profile` entry's paper value (e.g.
# metrics/verdicts/cpu_scale.csv): the scorecard shows their verdict of each row that entry touches.
SENSITIVITY_PROFILE_VERDICTS = {
    e.rerun["profile"]: f"metrics/verdicts/{e.rerun['profile']}.csv"
    for e in TUNED
    if e.kind == "profile"
    and e.id in SENSITIVITY_PENDING
    and e.rerun["profile"] != config["profile"]
    and Path(workflow.basedir, "metrics", "verdicts", f"{e.rerun['profile']}.csv").is_file()
}


SENSITIVITY_RUN = [e for e in TUNED if tuned.applies(e, config)]
# The Aequa reruns: (main run, rerun) pairs of the runs each retrains (none for a setting only the claims read).
SENSITIVITY_AEQUA = {
    e.id: tuned.aequa_rerun(e, AEQUA_RUNS, f"{SENSITIVITY_ROOT}/{e.id}")
    for e in SENSITIVITY_RUN
    if e.kind in ("aequa", "aequa_claims")
}
SENSITIVITY_CLAIMS.update({i: f"{SENSITIVITY_ROOT}/{i}/aequa/claims.csv" for i in SENSITIVITY_AEQUA})

if SENSITIVITY_AEQUA:

    rule sensitivity_aequa:
        """Every Aequa rerun of this profile in one process (torch starts once): each retrains the runs its setting
        changes with the rerun value (the main run's standalone runs give the contributions unless standalone is
        retrained), then builds the main experiments' tables and claims from those runs and the main run's others.
        """
        input:
            runs=AEQUA_RUNS,
            runs_check=[check_file(p) for p in AEQUA_RUNS],
            data=sorted(
                {
                    dataset_file(d)
                    for e in SENSITIVITY_RUN
                    if e.id in SENSITIVITY_AEQUA
                    for d in e.rerun.get("datasets", [])
                }
            ),
        output:
            files=[
                f
                for i, pairs in SENSITIVITY_AEQUA.items()
                for f in tuned.aequa_outputs(f"{SENSITIVITY_ROOT}/{i}", pairs, AEQUA_TABLES)
            ],
            files_check=[  # the rerun's run records (JSON)
                check_file(new) for pairs in SENSITIVITY_AEQUA.values() for _, new in pairs
            ],
            claims=list(SENSITIVITY_CLAIMS[i] for i in SENSITIVITY_AEQUA),
            claims_check=[check_file(SENSITIVITY_CLAIMS[i]) for i in SENSITIVITY_AEQUA],
        log:
            "logs/sensitivity/aequa.log",
        resources:
            gpu=GPU if any(SENSITIVITY_AEQUA.values()) else 0,  # a training rule when it retrains (see common.smk)
        params:
            commands=lambda w: " + ".join(
                command
                for e in SENSITIVITY_RUN
                if e.id in SENSITIVITY_AEQUA
                for command in tuned.aequa_job(
                    f"{SENSITIVITY_ROOT}/{e.id}",
                    SENSITIVITY_AEQUA[e.id],
                    AEQUA_RUNS,
                    AEQUA_TABLES,
                    # the main run's config (every row keeps its text), or the rerun value's for a claims-only setting
                    (
                        cfg_json("seed", "aequa")
                        if e.kind == "aequa"
                        else cfg_file({"seed": config["seed"], **tuned.rerun_blocks(config, e, "aequa")})
                    ),
                    tuned.aequa_commands(
                        SENSITIVITY_AEQUA[e.id],
                        {d: dataset_file(d) for d in e.rerun.get("datasets", [])},
                        cfg_file(
                            {
                                "seed": config["seed"],
                                "device": config["device"],
                                **tuned.rerun_blocks(config, e, "aequa"),
                            }
                        ),
                        CHECKPOINTS,
                    ),
                )
            ),
        shell:
            "fairshare {params.commands} > {log} 2>&1"


# A claims-only Aequa setting the extensions' claims read too (`extensions: true`, e.g. the NaN-rho rule): their
# summaries of the main run's participation, training-time and scale runs with the rerun value, then one claims file
# with the main experiments' rerun claims (rule sensitivity_aequa) before them.
for _entry in SENSITIVITY_RUN:
    if _entry.kind != "aequa_claims" or not _entry.rerun.get("extensions"):
        continue
    _ext = f"{SENSITIVITY_ROOT}/{_entry.id}/aequa"
    SENSITIVITY_CLAIMS[_entry.id] = f"{SENSITIVITY_ROOT}/{_entry.id}/claims.csv"

    rule:
        """The Aequa extensions' claims (Tables 3-4, Figs 3-4) judged with a setting only the claims read at its rerun
        value, on the main run's extension runs (no training), joined after the main experiments' rerun claims."""
        name:
            f"sensitivity_{_entry.id}_extensions"
        input:
            main_claims=f"{_ext}/claims.csv",
            participation=AEQUA_PART_RUNS,
            participation_check=[check_file(p) for p in AEQUA_PART_RUNS],
            training_time=AEQUA_TT_RUNS,
            training_time_check=[check_file(p) for p in AEQUA_TT_RUNS],
            standalone=[aequa_tt_standalone(r) for r in AEQUA_TT_SETTINGS],
            standalone_check=[check_file(aequa_tt_standalone(r)) for r in AEQUA_TT_SETTINGS],
            scale=[aequa_run_file("scale", {"seed": s}, m) for m in AEQUA_SCALE_METHODS for s in AEQUA_EXT_RUNS],
            scale_check=[
                check_file(aequa_run_file("scale", {"seed": s}, m))
                for m in AEQUA_SCALE_METHODS
                for s in AEQUA_EXT_RUNS
            ],
        output:
            **{f"{f}_{x}": f"{_ext}/{f}_training_time.{x}" for f in AEQUA_TT["partitions"] for x in ("png", "pdf")},
            table3_csv=f"{_ext}/table3.csv",
            table3_md=f"{_ext}/table3.md",
            per_client=f"{_ext}/participation_per_client.csv",
            participation_claims=f"{_ext}/participation_claims.csv",
            fig2_png=f"{_ext}/fig2_participation.png",
            fig2_pdf=f"{_ext}/fig2_participation.pdf",
            rounds=f"{_ext}/training_time_rounds.csv",
            training_time_claims=f"{_ext}/training_time_claims.csv",
            table4_csv=f"{_ext}/table4.csv",
            table4_md=f"{_ext}/table4.md",
            scale_claims=f"{_ext}/scale_claims.csv",
            curve=f"{_ext}/scale_width_curve.csv",
            fig5_png=f"{_ext}/fig5_scale_width.png",
            fig5_pdf=f"{_ext}/fig5_scale_width.pdf",
            claims=f"{SENSITIVITY_ROOT}/{_entry.id}/claims.csv",
            claims_check=check_file(f"{SENSITIVITY_ROOT}/{_entry.id}/claims.csv"),
        log:
            f"logs/sensitivity/{_entry.id}_extensions.log",
        params:
            cfg=lambda w, e=_entry: cfg_file({"seed": config["seed"], **tuned.rerun_blocks(config, e, "aequa")}),
            fig2=lambda w, output: output.fig2_png[:-4],
            fig5=lambda w, output: output.fig5_png[:-4],
            figures=lambda w, output: " ".join(
                f"--figure {p} {output[f'{fig}_png'][:-4]}" for fig, p in AEQUA_TT["partitions"].items()
            ),
        shell:
            "fairshare aequa-ext participation-summary {input.participation} --table {output.table3_csv}"
            " {output.table3_md} --per-client {output.per_client} --claims {output.participation_claims}"
            " --figure {params.fig2} --cfg {params.cfg} +"
            " aequa-ext training-time-summary {input.training_time} --rounds {output.rounds}"
            " --standalone {input.standalone} --claims {output.training_time_claims} {params.figures} --cfg {params.cfg} +"
            " aequa-ext scale-summary {input.scale} --table {output.table4_csv} {output.table4_md}"
            " --claims {output.scale_claims} --curve {output.curve} --figure {params.fig5} --cfg {params.cfg} +"
            " sensitivity join-claims {input.main_claims} {output.participation_claims}"
            " {output.training_time_claims} {output.scale_claims} --output {output.claims} > {log} 2>&1"


# The Aequa extensions (kind aequa_extensions, issue 38): each entry retrains the participation, training-time and
# scale runs its setting changes with the rerun value (fairshare.pipeline.sensitivity_extensions), then summarizes
# each retrained extension from those runs and the main run's others; one rule per entry.
SENSITIVITY_EXT_LAYOUT = Layout(
    seeds=AEQUA_EXT_RUNS,
    run_file=aequa_run_file,
    dataset_file=dataset_file,
    scale_dataset=AEQUA_SCALE["dataset"],
    scale_data=SCALE_DATA,
    scale_writers=SCALE_WRITERS,
    main_runs={
        "participation": AEQUA_PART_RUNS,
        "training_time": AEQUA_TT_RUNS,
        "scale": [aequa_run_file("scale", {"seed": s}, m) for m in AEQUA_SCALE_METHODS for s in AEQUA_EXT_RUNS],
    },
    training_time_standalone=[aequa_tt_standalone(r) for r in AEQUA_TT_SETTINGS],
    figures=AEQUA_TT["partitions"],
    checkpoints=CHECKPOINTS,
    check=check_file,
)
for _entry in SENSITIVITY_RUN:
    if _entry.kind != "aequa_extensions":
        continue
    _outputs, _inputs, _commands, SENSITIVITY_CLAIMS[_entry.id] = extension_job(
        _entry,
        extension_plan(_entry, AEQUA),
        f"{SENSITIVITY_ROOT}/{_entry.id}",
        SENSITIVITY_EXT_LAYOUT,
        cfg_file({"seed": config["seed"], "device": config["device"], **tuned.rerun_blocks(config, _entry, "aequa")}),
        cfg_json("seed", "aequa"),
    )

    rule:
        """The Aequa extensions' runs a setting changes, retrained at its rerun value, and their claims (one process)."""
        name:
            f"sensitivity_{_entry.id}"
        input:
            _inputs,
        output:
            _outputs,
        log:
            f"logs/sensitivity/{_entry.id}.log",
        resources:
            gpu=GPU,
        params:
            commands=" + ".join(_commands),
        shell:
            "fairshare {params.commands} > {log} 2>&1"


for _entry in SENSITIVITY_RUN:
    _root = f"{SENSITIVITY_ROOT}/{_entry.id}"
    if _entry.kind == "auctions_exp5":
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

    if _entry.kind == "auctions_claims":
        SENSITIVITY_CLAIMS[_entry.id] = f"{_root}/auctions/claims.csv"

        rule:
            """Section V's claims judged with a setting only they read (e.g. Theorem 11's standard-error rule) at its
            rerun value, on the main run's Exp 5, truthfulness and Corollary 10 results: nothing recomputed."""
            name:
                f"sensitivity_{_entry.id}"
            input:
                exp5=f"{AU_RESULTS}/exp5.csv",
                truthfulness=f"{AU_RESULTS}/truthfulness.csv",
                corollary10=f"{AU_RESULTS}/corollary10.csv",
            output:
                claims=f"{_root}/auctions/claims.csv",
                claims_check=check_file(f"{_root}/auctions/claims.csv"),
            log:
                f"logs/sensitivity/{_entry.id}.log",
            params:
                cfg=lambda w, e=_entry: cfg_file({"seed": config["seed"], **tuned.rerun_blocks(config, e, "auctions")}),
            shell:
                "fairshare auctions claims --exp5 {input.exp5} --truthfulness {input.truthfulness}"
                " --corollary10 {input.corollary10} --output {output.claims} --cfg {params.cfg} > {log} 2>&1"


# Multi-model FL and Exp 6 (issue 38): each entry retrains the experiments its setting changes (kind mmfl: every
# experiment when the register names none; `exp6`: Exp 6 too, on the main run's recruitment files), reusing the main
# run's other runs, then summarizes them as rule mmfl_summarize does (and Fig. 7c as rule auctions_figure7c), with the
# rerun value's blocks; a setting only the summaries read (mmfl_claims, exp6_claims) retrains nothing.
for _entry in SENSITIVITY_RUN:
    if _entry.kind not in ("mmfl", "mmfl_claims", "exp6_claims"):
        continue
    _root = f"{SENSITIVITY_ROOT}/{_entry.id}"
    _outputs, _inputs, _commands, SENSITIVITY_CLAIMS[_entry.id] = sensitivity_mmfl_job(_entry, _root)

    rule:
        """A multi-model FL (and Exp 6) setting at its rerun value: the runs it changes retrained, the main run's other
        runs reused, then the summaries and claims (one process)."""
        name:
            f"sensitivity_{_entry.id}"
        input:
            _inputs,
        output:
            _outputs,
        log:
            f"logs/sensitivity/{_entry.id}.log",
        resources:
            gpu=GPU if _entry.kind == "mmfl" else 0,
        params:
            commands=" + ".join(_commands),
        shell:
            "fairshare {params.commands} > {log} 2>&1"
