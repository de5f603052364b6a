#!/usr/bin/env bash
# run.sh - install what is missing, build, and run the main job.
# Usage: scripts/run.sh [CCSIM_ARGS...]
# Default: `ccsim compare` on the bundled default (the 2 hours around the
# sample trace's peak, on the sample's own Lingjun topology, every registered
# scheduler); results in results/default_TOPOLOGY_all_HASH/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
ccsim_install_packages "${CCSIM_PACKAGES[@]}"
scripts/build.sh build
if [ $# -eq 0 ]; then
    set -- compare
fi
exec build/ccsim "$@"
