#!/usr/bin/env bash
# run.sh - install what is missing, build, and run the main job.
# Usage: scripts/run.sh [CCSIM_ARGS...]
# Default: the demo: `ccsim compare` of seven schedulers on the bundled
# sample trace, its jobs on the hosts the generator recorded for them, on
# the sample's own three-layer Clos with ToR uplinks oversubscribed 4:1,
# over the 20 minutes around the sample's peak demand; then one sentence,
# computed from the runs' summary.csv and run.json, saying why the winner
# wins; results in results/demo/.  With arguments, they go to build/ccsim
# instead.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
ccsim_install_packages "${CCSIM_PACKAGES[@]}"
scripts/build.sh build
if [ $# -gt 0 ]; then
    exec build/ccsim "$@"
fi
out=results/demo
# the window: 10 minutes either side of the first instant of peak demand
peak=$(build/ccsim trace load default | awk '$1 == "peak_at_s" { print $2 }')
build/ccsim compare --topo lingjun-sample:oversub=4 --start $((peak - 600)) --end $((peak + 600)) \
    --scheds ecmp,sincronia,cassini,crux-pa,taccl,crux,ideal -j 2 --out "$out" --force
python3 scripts/demo_why.py "$out"
