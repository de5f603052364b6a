#!/usr/bin/env bash
# run.sh - install what is missing, build, and run the main job.
# Usage: scripts/run.sh [CCSIM_ARGS...]   (default: the built-in engine demo)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
ccsim_install_packages "${CCSIM_PACKAGES[@]}"
scripts/build.sh build
if [ $# -eq 0 ]; then
    set -- demo
fi
exec build/ccsim "$@"
