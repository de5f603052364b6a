#!/usr/bin/env bash
# run.sh - install what is missing, build, and run the main job.
# Usage: scripts/run.sh [CCSIM_ARGS...]
# Default: `ccsim compare` on the bundled default (the sample trace, a
# fat-tree sized for it, every registered scheduler); results in
# results/default/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
ccsim_install_packages "${CCSIM_PACKAGES[@]}"
scripts/build.sh build
if [ $# -eq 0 ]; then
    set -- compare
fi
exec build/ccsim "$@"
