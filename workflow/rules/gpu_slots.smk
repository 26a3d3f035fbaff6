# How many GPU jobs run at once. Training rules declare `resources: gpu=1` when the config trains on CUDA; a local run
# gets one GPU slot unless the command line or a profile names more (`--resources gpu=N`), and profiles/slurm names
# 100 (the cluster schedules the GPUs). The local default is set here, not in profiles/default: Snakemake loads that
# workflow profile after any --profile, so a `resources` entry there would replace the cluster's.
if "gpu" not in workflow.global_resources:
    workflow.register_resource("gpu", 1)
