#!/usr/bin/env bash
# Snakemake for the experiment's stage (experiments/dvc.yaml), found without an activated environment: the project's
# .venv (what `./run` and `uv sync` make) in the stage's folder or the nearest folder above it (`dvc exp run --temp`
# works in a copy under .dvc/tmp/exps/ of the clone), else `snakemake` on PATH. The rules find `fairshare` beside
# the Snakemake that runs them (workflow/rules/common.smk). Arguments go to Snakemake.
set -euo pipefail
dir=$(pwd -P)
while :; do
  if [ -x "$dir/.venv/bin/snakemake" ]; then
    exec "$dir/.venv/bin/snakemake" "$@"
  fi
  [ "$dir" != / ] || break
  dir=$(dirname "$dir")
done
if command -v snakemake >/dev/null 2>&1; then
  exec snakemake "$@"
fi
echo "fairshare: no Snakemake for the experiment: no .venv in $(pwd -P) or above, none on PATH; set the clone up first (./run tests, or uv sync --frozen)" >&2
exit 127
