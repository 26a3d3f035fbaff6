# Recruitment auctions (FedFairMMFL paper, Section V). Experiment 5 (Figures 7a, 7b), measured truthfulness and
# Corollary 10: numpy, seconds of CPU. Experiment 6 (Figure 7c): recruitment files, then FedFairMMFL training.
AU_RESULTS = "results/auctions"
AU_FIGURES = "figures/auctions"
AU_LOGS = "logs/auctions"
AU6 = config["auctions"]["exp6"]
USED_DATASETS.update(AU6["tasks"])
AU6_RECRUIT = f"{AU_RESULTS}/recruitment/B{AU6['budget']:g}"
AU6_RUNS = [{"mechanism": m, "seed": str(s)} for m in AU6["mechanisms"] for s in range(AU6["seeds"])]


rule auctions:
    """Exp 6's recruitment files (one per (mechanism, seed) at its budget: winners per task, participation, payments,
    bids), Experiment 5 (take-up per task vs budget for every mechanism and seed), misreporting gains of every mechanism
    (truthfulness, Theorem 8, Corollary 9), Corollary 10, Algorithm 3's line 5 read both ways and Sec. V-C's join
    probability (Theorem 11), Section V's statements (Figs. 7a/7b orderings, truthfulness, Corollaries 9 and 10,
    Algorithm 3, Theorem 11) from those results, and Figures 7a and 7b: one command after another in one
    process."""
    output:
        recruitment=[exp6_file(AU6_RECRUIT, r, ".json") for r in AU6_RUNS],
        recruitment_check=[check_file(exp6_file(AU6_RECRUIT, r, ".json")) for r in AU6_RUNS],
        exp5=f"{AU_RESULTS}/exp5.csv",
        truthfulness=f"{AU_RESULTS}/truthfulness.csv",
        corollary10=f"{AU_RESULTS}/corollary10.csv",
        claims=f"{AU_RESULTS}/claims.csv",
        claims_check=check_file(f"{AU_RESULTS}/claims.csv"),
        fig7a=f"{AU_FIGURES}/fig7a.png",
        fig7a_pdf=f"{AU_FIGURES}/fig7a.pdf",
        fig7b=f"{AU_FIGURES}/fig7b.png",
        fig7b_pdf=f"{AU_FIGURES}/fig7b.pdf",
    log:
        f"{AU_LOGS}/auctions.log",
    params:
        cfg=lambda w: cfg_json("seed", "auctions"),
        fig7a=lambda w, output: figure_stem(output.fig7a),
        fig7b=lambda w, output: figure_stem(output.fig7b),
        budget=AU6["budget"],
        mechanisms=[r["mechanism"] for r in AU6_RUNS],
        seeds=[r["seed"] for r in AU6_RUNS],
    shell:
        "fairshare auctions recruit --budget {params.budget} --mechanisms {params.mechanisms} --seeds {params.seeds}"
        " --outputs {output.recruitment} --cfg {params.cfg} +"
        " auctions exp5 --output {output.exp5} --cfg {params.cfg} +"
        " auctions properties --truthfulness {output.truthfulness} --corollary10 {output.corollary10}"
        " --cfg {params.cfg} +"
        " auctions claims --exp5 {output.exp5} --truthfulness {output.truthfulness}"
        " --corollary10 {output.corollary10} --output {output.claims} --cfg {params.cfg} +"
        " auctions figures --exp5 {output.exp5} --fig7a {params.fig7a} --fig7b {params.fig7b}"
        " --cfg {params.cfg} > {log} 2>&1"


# Experiment 6: the recruited clients of each recruitment file (written by rule `auctions`) train two tasks with
# FedFairMMFL; a run is one (mechanism, seed), runs_per_job (auctions) of them per job, one mechanism per job at most
# (the mechanisms' jobs share the cores; docs/budgets.md).
for _job in training_rules("auctions", "auctions_exp6", AU6_RUNS, together=lambda run: run["mechanism"]):

    _size = job_size(_job, lambda r: sizes.exp6_run(config))

    rule:
        """FedFairMMFL on the recruits of the runs of one job, one after another, checkpointing every round."""
        name:
            _job.name
        input:
            recruitment=[exp6_file(AU6_RECRUIT, r, ".json") for r in _job.runs],
            recruitment_check=[check_file(exp6_file(AU6_RECRUIT, r, ".json")) for r in _job.runs],
            datasets=[dataset_file(t) for t in AU6["tasks"]],
        output:
            rows=[exp6_file(f"{AU_RESULTS}/exp6", r, ".csv") for r in _job.runs],
            rows_check=[check_file(exp6_file(f"{AU_RESULTS}/exp6", r, ".csv")) for r in _job.runs],
        log:
            f"{AU_LOGS}/{_job.stem}.log",
        wildcard_constraints:
            **dict(_job.constraints),
        priority: longest_first(_size)
        resources:
            **training_resources(_size),
        params:
            cfg=lambda w: exp6_cfg_json(),
            datasets=[f"{t}={dataset_file(t)}" for t in AU6["tasks"]],
            checkpoints=lambda w, job=_job: [
                exp6_file(f"{CHECKPOINTS}/auctions/exp6", r, ".pt") for r in job.runs_of(w)
            ],
        shell:
            "fairshare auctions exp6 --recruitment {input.recruitment} --datasets {params.datasets}"
            " --output {output.rows} --checkpoint {params.checkpoints} --cfg {params.cfg} > {log} 2>&1"


rule auctions_figure7c:
    """Figure 7c: minimum accuracy across the two tasks per mechanism, its summary table and claims."""
    input:
        runs=[exp6_file(f"{AU_RESULTS}/exp6", r, ".csv") for r in AU6_RUNS],
        runs_check=[check_file(exp6_file(f"{AU_RESULTS}/exp6", r, ".csv")) for r in AU6_RUNS],
    output:
        summary=f"{AU_RESULTS}/exp6_summary.csv",
        claims=f"{AU_RESULTS}/exp6_claims.csv",
        claims_check=check_file(f"{AU_RESULTS}/exp6_claims.csv"),
        png=f"{AU_FIGURES}/fig7c.png",
        pdf=f"{AU_FIGURES}/fig7c.pdf",
    log:
        f"{AU_LOGS}/figure7c.log",
    params:
        cfg=lambda w: cfg_json("auctions"),
        stem=lambda w, output: figure_stem(output.png),
    shell:
        "fairshare auctions figure7c {input.runs} --summary {output.summary} --claims {output.claims}"
        " --output {params.stem} --cfg {params.cfg} > {log} 2>&1"
