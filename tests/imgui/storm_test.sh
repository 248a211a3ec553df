#!/bin/sh
# Storm test of the ImGui explorer (issue 6.5): random mouse input and random parameter values for
# ALIBI_STORM_SECONDS seconds (default 10), then a settling phase. The explorer prints its frame gaps
# and memory and exits non-zero when the last results never arrive, the final grid is not the final
# parameters' grid, a screenshot or export went wrong, or resident memory passed 2 GiB; frame gaps
# are only asserted in the bench mode (ALIBI_STORM_LATENCY_BUDGET_MS). Skipped (77) without DISPLAY.
set -eu
[ -n "${DISPLAY:-}" ] || { echo "DISPLAY is not set: skipping (run under xvfb-run)"; exit 77; }
exec "$1" --storm "${ALIBI_STORM_SECONDS:-10}" --width 1600 --height 1000
