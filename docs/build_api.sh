#!/usr/bin/env bash
# The API reference of the fairshare library, built offline from its docstrings with pdoc.
# Usage: docs/build_api.sh [OUTPUT_DIR]   (default docs/api; open OUTPUT_DIR/fairshare.html in a browser)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/api}"
uv run --frozen pdoc --docformat restructuredtext -o "$out" fairshare
echo "API reference: $out/fairshare.html"
