"""Snakemake's own CPU while jobs wait for cores, with and without `fairshare.pipeline.scheduler_idle`, side by side.

A generated workflow of `--jobs` ready jobs, each reading `--inputs` files of its own and sleeping `--seconds` (no CPU of its
own), runs on `--cores` cores twice in this process's children: as Snakemake ships, and with the Snakefile installing
the wrapper (as workflow/rules/common.smk does). The jobs do nothing, so the children's CPU time is Snakemake's. It
prints both CPU times, the ratio, and checks that both runs ran every job.

Usage: python bench/snakemake_idle.py [--jobs 16] [--inputs 400] [--seconds 4] [--cores 2]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SNAKEFILE = """
import sys
sys.path.insert(0, {src!r})
if {patched}:
    from fairshare.pipeline import scheduler_idle
    scheduler_idle.install()

JOBS = range({jobs})

rule all:
    input: expand("out/{{j}}.txt", j=JOBS)

rule wait:
    input: expand("in/{{{{j}}}}_{{i}}.txt", i=range({inputs}))
    output: "out/{{j}}.txt"
    shell: "sleep {seconds}; touch {{output}}"
"""


def run(folder: Path, patched: bool, args: argparse.Namespace) -> tuple[float, float]:
    """CPU seconds (user + system) and wall seconds of one Snakemake run of the generated workflow in ``folder``."""
    src = str(Path(__file__).resolve().parents[1] / "src")
    text = SNAKEFILE.format(src=src, patched=patched, jobs=args.jobs, inputs=args.inputs, seconds=args.seconds)
    (folder / "Snakefile").write_text(text)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", str(args.cores), "--quiet", "all"],
        cwd=folder,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = len(list((folder / "out").glob("*.txt")))
    if done != args.jobs:
        raise SystemExit(f"{'patched' if patched else 'as shipped'}: {done} of {args.jobs} jobs ran")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=16, help="ready jobs (default 16)")
    parser.add_argument("--inputs", type=int, default=400, help="input files of each job (default 400)")
    parser.add_argument("--seconds", type=float, default=4.0, help="each job's sleep (default 4)")
    parser.add_argument("--cores", type=int, default=2, help="Snakemake's cores (default 2)")
    args = parser.parse_args(argv)
    results = {}
    for patched in (False, True):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / "in").mkdir()
            for j in range(args.jobs):
                for i in range(args.inputs):
                    (folder / "in" / f"{j}_{i}.txt").write_text("x")
            results[patched] = run(folder, patched, args)
    (shipped, shipped_wall), (idle, idle_wall) = results[False], results[True]
    print(
        f"{args.jobs} jobs of {args.inputs} inputs, {args.seconds:g} s each, on {args.cores} cores: "
        f"Snakemake's CPU {shipped:.1f} s as shipped ({shipped_wall:.0f} s wall), {idle:.1f} s with scheduler_idle "
        f"({idle_wall:.0f} s wall): {shipped / idle:.1f}x less"
    )


if __name__ == "__main__":
    main()
