#!/usr/bin/env bash
# test-slurm.sh - run ccsim sweeps through a real Slurm on this machine and
# check each merged summary equals a local run of the same sweep (wall_s,
# events, peak_rss_bytes and the scenario path column aside):
#   1. tests/data/sweep_small.json (6 runs) as an array of 3 tasks + merge;
#   2. one run split in 4 time shards (tests/data/shards_alone.json,
#      sim.shards 4) as an array of 4 tasks + merge.
# scripts/slurm/local-cluster.sh starts the single-node Slurm (loopback
# only) and stops it on exit; scripts/slurm/submit.sh --wait submits.
#
# Needs root.  Exit 0 passed, 1 failed, 77 skipped (with the reason on the
# last line); CCSIM_SKIP_SLURM=1 skips.
# Usage: scripts/test-slurm.sh [CCSIM_BINARY]   (default build/ccsim)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

if [ "${1:-}" != --inside ]; then
    ccsim=${1:-build/ccsim}
    if [ ! -x "$ccsim" ]; then
        scripts/build.sh build
        ccsim=build/ccsim
    fi
    status=0
    scripts/slurm/local-cluster.sh "$0" --inside "$(realpath "$ccsim")" || status=$?
    [ "$status" -eq 77 ] && echo "test-slurm: SKIPPED: Slurm cannot run here (reason above)"
    exit "$status"
fi
ccsim=$2

W=$(mktemp -d /tmp/ccsim-slurm-work.XXXXXX)
trap 'rm -rf "$W"' EXIT
cp tests/data/sweep_base.json tests/data/sweep_small.json "$W/"
cat > "$W/sweep_split.json" <<EOF
{"base": "$root/tests/data/shards_alone.json", "grid": {"sim.shards": [4]}}
EOF
cd "$W"
if "$ccsim" run --help >/dev/null 2>&1; then
    echo "test-slurm: workers: the real 'ccsim run'"
else
    echo "test-slurm: workers: tests/fake_ccsim_run.sh (this ccsim has no 'run' yet)"
    export CCSIM_SWEEP_WORKER=$root/tests/fake_ccsim_run.sh
fi
stable_csv() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) drop[i] = ($i == "wall_s" || $i == "peak_rss_bytes" || $i == "scenario" || $i == "events") }
             { out = ""; n = 0
               for (i = 1; i <= NF; i++) if (!drop[i]) { out = out (n++ ? "," : "") $i }
               print out }' "$1"
}
# through_slurm SWEEP TASKS: the sweep locally and as an array of TASKS
# tasks + merge; the two summaries must agree.
through_slurm() {
    local sweep=$1 tasks=$2 name=${1%.json}
    "$ccsim" sweep "$sweep" --out "local-$name" -j 2 > /dev/null 2>&1
    local status=0
    CCSIM=$ccsim timeout 600 "$root/scripts/slurm/submit.sh" "$sweep" "slurm-$name" \
        --tasks "$tasks" --wait -- --time=10 > /dev/null || status=$?
    if [ "$status" -ne 0 ]; then
        echo "test-slurm: FAILED: $sweep: the merge job ended with status $status"
        tail -n 20 "slurm-$name"/slurm/*.out 2>/dev/null || true
        exit 1
    fi
    local logs
    logs=$(ls "slurm-$name"/slurm/task-*.out | wc -l)
    if [ "$logs" -ne "$tasks" ]; then
        echo "test-slurm: FAILED: $sweep: expected $tasks task logs, found $logs"
        exit 1
    fi
    if ! diff <(stable_csv "local-$name/summary.csv") <(stable_csv "slurm-$name/summary.csv"); then
        echo "test-slurm: FAILED: $sweep: the merged Slurm summary differs from the local sweep"
        exit 1
    fi
    echo "test-slurm: passed: $sweep: $tasks array tasks + merge job;" \
        "$(($(wc -l < "local-$name/summary.csv") - 1)) run(s) equal the local sweep"
}
through_slurm sweep_small.json 3
if "$ccsim" run --help 2>/dev/null | grep -q -- --shards; then
    through_slurm sweep_split.json 4
fi
