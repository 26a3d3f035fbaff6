# What each training job asks of the machine and when it starts. Its size is the estimate the config validation checks
# (fairshare.pipeline.resources): `mem_mb`, `disk_mb` and `runtime` for Snakemake and the SLURM executor, and the
# order among ready jobs. Jobs that are not training (data, partitions, the closed-form papers, sensitivity reruns,
# summaries, the report) are short and unblock others, so they start first; training jobs then start longest first,
# so that the last job to start is a short one and both cores stay busy to the end (longest-processing-time order).

#: The priority of every job that is not a training job: above any training job's estimated minutes.
PREPARE_FIRST = 1_000_000


def job_size(job, run_size):
    """`wildcards -> Estimate` of the runs a job of this training rule trains, from `run_size(run)`."""
    return lambda w: sizes.job(run_size(run) for run in job.runs_of(w))


def training_resources(size):
    """A training rule's Snakemake resources: `mem_mb`, `disk_mb` (checkpoints) and `runtime` (minutes) of its job's
    `size`, and the GPU."""
    return {
        "gpu": GPU,
        "mem_mb": lambda w: size(w).mem_mb,
        "disk_mb": lambda w: size(w).disk_mb,
        "runtime": lambda w: size(w).minutes,
    }


def longest_first(size):
    """A training rule's Snakemake priority: its job's estimated minutes."""
    return lambda w: min(size(w).minutes, PREPARE_FIRST - 1)


def prepare_first(rules):
    """Give every one of ``rules`` without a `longest_first` priority the priority `PREPARE_FIRST` (the Snakefile
    calls this once every rule file is read)."""
    for each in rules:
        if not callable(each.priority):
            each.priority = PREPARE_FIRST
