"""Share of a pipeline's CPU time spent starting jobs (issue 21: under 10 % on the default profile).

Runs a pipeline command (by default ``./run pipeline --forceall``: every job of the default profile, whatever is
already built) with ``FAIRSHARE_JOB_STATS`` set, so that every `fairshare` job records its CPU time and the modules it
imported (``fairshare.pipeline.job_stats``). The pipeline's CPU time is that of the command and every process under it
(``RUSAGE_CHILDREN``). A job's start-up is the CPU a fresh interpreter needs to import exactly the modules that job
imported, in the same order (least of ``--repeats`` tries, and at most the job's own CPU time): what one more process
costs before it does any work.
Processes that are not `fairshare` jobs (Snakemake itself, its HTML report, uv) are listed as "other".

Usage: python bench/startup_share.py [--repeats 2] [-- COMMAND ...]
       python bench/startup_share.py --stats DIR --pipeline-cpu SECONDS   (analyse a run made with the variable set)
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fairshare.pipeline.job_stats import ENV, cpu_seconds

REPO = Path(__file__).resolve().parents[1]
# Imports each module named on stdin, in order; a name that cannot be imported on its own (an alias, a module
# created at run time) is skipped, as importing its parent already paid for it.
IMPORT_ALL = """
import importlib, sys
for name in sys.stdin.read().split():
    try:
        importlib.import_module(name)
    except Exception:
        pass
"""


def import_cpu(modules: tuple[str, ...], repeats: int) -> float:
    """Least CPU seconds (user + system) of a fresh interpreter importing ``modules``, over ``repeats`` tries."""
    best = float("inf")
    for _ in range(repeats):
        proc = subprocess.Popen([sys.executable, "-c", IMPORT_ALL], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
        proc.stdin.write("\n".join(modules).encode())
        proc.stdin.close()
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"re-importing a job's modules failed (exit {status})")
        best = min(best, usage.ru_utime + usage.ru_stime)
    return best


def run_pipeline(command: list[str], stats: Path) -> tuple[float, float]:
    """Run ``command`` in the repository with job statistics on; its (CPU seconds, wall seconds)."""
    before, start = cpu_seconds(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(command, cwd=REPO, env={**os.environ, ENV: str(stats)}, check=True)
    return cpu_seconds(resource.RUSAGE_CHILDREN) - before, time.perf_counter() - start


def report(stats: Path, pipeline_cpu: float, repeats: int) -> None:
    jobs = [json.loads(p.read_text()) for p in sorted(stats.glob("*.json"))]
    if not jobs:
        raise SystemExit(f"no job statistics in {stats}: was {ENV} set for the run?")
    startup_of = {}
    for modules in {tuple(j["modules"]) for j in jobs}:
        startup_of[modules] = import_cpu(modules, repeats)
    per_command = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for job in jobs:
        row = per_command[" ".join(job["argv"][:2])]
        row[0] += 1
        row[1] += min(startup_of[tuple(job["modules"])], job["cpu_s"])  # a start-up never exceeds its job
        row[2] += job["cpu_s"]
    print(f"{'command':<36} {'jobs':>4} {'start-up/job':>12} {'job CPU':>9}")
    for command, (count, startup, cpu) in sorted(per_command.items(), key=lambda kv: -kv[1][1]):
        print(f"{command:<36} {count:>4} {startup / count:>11.2f}s {cpu:>8.1f}s")
    startup = sum(row[1] for row in per_command.values())
    job_cpu = sum(row[2] for row in per_command.values())
    print(
        f"\nfairshare jobs: {len(jobs)}, {job_cpu:.1f} CPU-s; other processes (Snakemake, its report, uv): "
        f"{pipeline_cpu - job_cpu:.1f} CPU-s; pipeline: {pipeline_cpu:.1f} CPU-s"
    )
    print(
        f"start-up: {startup:.1f} CPU-s of {pipeline_cpu:.1f} = {100 * startup / pipeline_cpu:.1f} % of the "
        "pipeline's CPU time"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="fresh-interpreter tries per module set (least kept)")
    parser.add_argument("--stats", type=Path, help="analyse this folder of job statistics instead of running")
    parser.add_argument("--pipeline-cpu", type=float, help="with --stats: the run's CPU seconds")
    parser.add_argument("command", nargs="*", default=["./run", "pipeline", "--forceall"])
    args = parser.parse_args()
    if args.stats:
        if args.pipeline_cpu is None:
            parser.error("--stats needs --pipeline-cpu")
        report(args.stats, args.pipeline_cpu, args.repeats)
        return
    with tempfile.TemporaryDirectory() as folder:
        cpu, wall = run_pipeline(args.command, Path(folder))
        print(f"{' '.join(args.command)}: {wall / 60:.1f} min wall, {cpu / 60:.1f} CPU-min\n")
        report(Path(folder), cpu, args.repeats)


if __name__ == "__main__":
    main()
