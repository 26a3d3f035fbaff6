# fairshare: regenerate every table and figure of the five papers.
#   snakemake --cores all                                   default profile (offline, 2-core CPU)
#   snakemake --configfile config/paper.yaml --profile profiles/slurm   paper scale on a GPU cluster
#
# `snakemake --lint` prints one lint on purpose (tests/test_lint.py fails on any other): "Specify a conda environment or
# container": the software environment is the locked uv environment (uv.lock), the same for every rule;
# `rerun-triggers` include software-env. Every function the rules call lives in workflow/rules/common.smk.


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/gpu_slots.smk"
include: "workflow/rules/job_sizes.smk"
include: "workflow/rules/data.smk"
# One rule file per paper; each paper's artifacts are listed in workflow/manifest.yaml.
include: "workflow/rules/model_sharing.smk"
include: "workflow/rules/dp_coalitions.smk"
include: "workflow/rules/payoff_flows.smk"
include: "workflow/rules/mmfl.smk"
include: "workflow/rules/auctions.smk"
include: "workflow/rules/aequa.smk"
include: "workflow/rules/aequa_extensions.smk"
# Reruns of the claims each tuned setting affects (workflow/tuned_settings.yaml), for the scorecard.
include: "workflow/rules/sensitivity.smk"
include: "workflow/rules/report.smk"


# Jobs that are not training start first, then training jobs longest first (workflow/rules/job_sizes.smk).
prepare_first(workflow.rules)


# The first real run of a folder records its profile (results/.profile); common.smk refuses any other profile there.
onstart:
    PROFILE_MARK.parent.mkdir(parents=True, exist_ok=True)
    PROFILE_MARK.write_text(config["profile"] + "\n")


rule all:
    default_target: True
    input:
        manifest_outputs(),
        "results/report.html",
        dataset_caches(),
        training_outputs(),
        TIMINGS,
        HEADLINE,
        PLOT_DATA,
