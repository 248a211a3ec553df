#!/usr/bin/env bash
# Runs the example notebook as a reader would (jupyter nbconvert --to html --execute) and checks
# that its outputs are there: the SVG slopes and the PNG grid inline, the diagnosis with its
# finding, the statistics table and the fit table.
# Usage: test_notebook.sh NOTEBOOK (PYTHONPATH, ALIBI_CLI and ALIBI_EXAMPLE_MAPS set by ctest)
set -euo pipefail
notebook=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jupyter >/dev/null || fail "jupyter is not installed (./scripts/deps test installs jupyter-nbconvert)"
out=$(mktemp -d /tmp/alibi-notebook-test.XXXXXX)
trap 'rm -rf "$out"' EXIT
# The notebook's working folder is its own, as when a person opens it.
cd "$(dirname "$notebook")"
jupyter nbconvert --to html --execute --ExecutePreprocessor.timeout=300 --output-dir "$out" \
  --output example "$(basename "$notebook")" || fail "nbconvert --execute failed"
html="$out/example.html"
[ -s "$html" ] || fail "no HTML written"
grep -q "<svg" "$html" || fail "no inline SVG figure (the slopes)"
grep -q "data:image/png;base64" "$html" || fail "no inline PNG figure (the head grid)"
grep -q "fp16-mask-overflow" "$html" || fail "the diagnosis does not show fp16-mask-overflow"
grep -q 'class="alibi-stats"' "$html" || fail "Stats has no HTML table"
grep -q "<th>layer</th>" "$html" || fail "no fit table"
echo "notebook test passed"
