#!/usr/bin/env bash
# validate-packet.sh - the packet-level cross-check (docs/validation.md,
# "Packet-level cross-check"): every case of validate/cases/ through ccsim
# (`ccsim export-packet`) and through ns-3 (build/validate/ns3/ccsim-packet),
# the errors per case, and the scheduler ranking on the 4-job Clos case under
# both simulators.  Writes results/validate-packet/ (table.csv, ranking.csv,
# each case's folders) and the tables into docs/validation.md.
#
# Usage: scripts/validate-packet.sh [CASE...]   (default: every case; with
# names, only those, and docs/validation.md is left alone)
# VALIDATE_PACKET_REUSE=1 keeps the ns-3 results already in
# results/validate-packet/ (ccsim's side is rerun; ns-3's depends only on
# the export's graph, routes and decisions, which ccsim's startup model
# does not change).
# Each case is also compared with ccsim under --step-latency per_step
# (docs/validation.md): the columns iter_err_steplat, fct_p50_err_steplat,
# fct_p99_err_steplat, util_err_steplat.
# Cases are scaled to run in seconds to a minute of CPU each in ns-3
# (milliseconds of simulated time, tens of megabytes per collective); the
# whole suite takes about ten CPU minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
ccsim_install_packages "${CCSIM_PACKAGES[@]}" g++ libns3-dev ns3 python3
scripts/build.sh build
replayer=build/validate/ns3/ccsim-packet
if [ ! -x "$replayer" ]; then
    echo "validate-packet: $replayer was not built (meson did not find ns-3; see build/meson-logs)" >&2
    exit 1
fi
out=results/validate-packet
mkdir -p "$out"
py=/usr/bin/python3

# name, routing in ns-3, scheduler override (- = the scenario's)
all_cases=(
    "ring-2 ccsim -" "ring-4 ccsim -" "ring-8 ccsim -"
    "share-fair ccsim -" "share-j1-first ccsim -" "share-j2-first ccsim -"
    "ecmp-collision ccsim -" "ecmp-collision ecmp -" "ecmp-repair ccsim -"
    "a2a-3 ccsim -" "a2a-8 ccsim -" "pipeline ccsim -" "multi-rail ccsim -"
    "clos-4jobs ccsim -"
)
# The ranking on the 4-job Clos case: the schedulers that decide at job
# starts and ends (the export records nothing else).
ranking=(ecmp crux crux-pa crux-ps-pa sincronia taccl)
[ -f validate/cases/tp-pp-dp.json ] && all_cases+=("tp-pp-dp ccsim -")

want=("$@")
selected() {
    [ ${#want[@]} -eq 0 ] && return 0
    local w
    for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done
    return 1
}

# run_case NAME ROUTING SCHED -> its table row (with the header first)
run_case() {
    local name=$1 routing=$2 sched=$3 label=$1 dir=$out/$1 opt=()
    [ "$routing" = ecmp ] && label="$name (ns-3 ECMP)"
    if [ "$sched" != - ]; then
        dir=$out/$name-$sched
        opt=(--sched "$sched")
    fi
    if [ "$routing" = ccsim ] || [ ! -d "$dir/export" ]; then
        /usr/bin/time -f "%U %S" -o "$dir.ccsim.time" build/ccsim export-packet \
            "validate/cases/$name.json" "${opt[@]}" -o "$dir/export" --force -q >/dev/null
        build/ccsim export-packet "validate/cases/$name.json" "${opt[@]}" \
            --step-latency per_step -o "$dir/export-steplat" --force -q >/dev/null
    fi
    if [ "${VALIDATE_PACKET_REUSE:-0}" != 1 ] || [ ! -f "$dir/ns3-$routing/summary.csv" ]; then
        nice -n 5 "$replayer" "$dir/export" -o "$dir/ns3-$routing" --routing "$routing"
    fi
    local steplat
    steplat=$($py scripts/validate-packet-compare.py "$dir/export-steplat" "$dir/ns3-$routing" |
        awk -F, 'NR == 1 { printf "%s,%s,%s,%s", $3, $5, $6, $9 }')
    $py scripts/validate-packet-compare.py "$dir/export" "$dir/ns3-$routing" --case "$label" \
        --header --extra "ccsim_cpu_s=$(awk '{ printf "%.3f", $1 + $2 }' "$dir.ccsim.time")" \
        --extra "routing=$routing" \
        --extra "scheduler=$(awk -F, 'NR == 2 { print $1 }' "$dir/export/packet_run.csv")" \
        --extra "iter_err_steplat=${steplat%%,*}" \
        --extra "fct_p50_err_steplat=$(echo "$steplat" | cut -d, -f2)" \
        --extra "fct_p99_err_steplat=$(echo "$steplat" | cut -d, -f3)" \
        --extra "util_err_steplat=${steplat##*,}"
}

# run_all ROUTING/SCHED... -> a CSV: the header once, then one row per run
table() {
    local first=1 c name routing sched
    for c in "$@"; do
        read -r name routing sched <<<"$c"
        echo "validate-packet: $name ($routing routing in ns-3, scheduler $sched)" >&2
        run_case "$name" "$routing" "$sched" | if [ $first = 1 ]; then cat; else tail -n 1; fi
        first=0
    done
}

load=$(cut -d' ' -f1-3 /proc/loadavg)
chosen=()
for c in "${all_cases[@]}"; do
    selected "${c%% *}" && chosen+=("$c")
done
table "${chosen[@]}" >"$out/table.csv.new"
mv "$out/table.csv.new" "$out/table.csv"

if selected clos-4jobs; then
    runs=()
    for s in "${ranking[@]}"; do runs+=("clos-4jobs ccsim $s"); done
    table "${runs[@]}" >"$out/ranking.csv.new"
    mv "$out/ranking.csv.new" "$out/ranking.csv"
fi
# the load beside the CPU seconds: of the run that ran ns-3 (a reuse keeps it)
if [ "${VALIDATE_PACKET_REUSE:-0}" != 1 ] || [ ! -f "$out/load.txt" ]; then
    echo "load before: $load; after: $(cut -d' ' -f1-3 /proc/loadavg)" >"$out/load.txt"
fi
if [ ${#want[@]} -eq 0 ]; then
    $py scripts/validate-packet-table.py "$out" docs/validation.md
    echo "validate-packet: tables written into docs/validation.md" >&2
fi
cat "$out/table.csv"
