# fairshare: regenerate every table and figure of the five papers.
#   snakemake --cores all                                   default profile (offline, 2-core CPU)
#   snakemake --configfile config/paper.yaml --profile profiles/slurm   paper scale on a GPU cluster
from pathlib import Path

configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"


# One rule file per paper (and report.smk); each adds its artifacts to workflow/manifest.yaml.
for _rule_file in sorted(Path(workflow.basedir, "workflow", "rules").glob("*.smk")):
    if _rule_file.stem not in ("common", "data"):
        include: str(_rule_file)


rule all:
    input:
        manifest_outputs(),
    default_target: True
