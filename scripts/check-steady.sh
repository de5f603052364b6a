#!/usr/bin/env bash
# check-steady.sh - the fast-forward changes no result: replays each case
# with and without it (--no-fast-forward) and compares every output field
# (docs/engine.md §5a, §5b, §5c; figures in docs/performance-notes.md).
#
# Usage: scripts/check-steady.sh [--trace DIR] [--scheds LIST] [--quick] [--out DIR]
#                                [--against BASE_CCSIM]
#   --trace DIR   full-size trace for the busiest-6-hours cases (default:
#                 a synthetic one, `ccsim gen-trace --seed 1`, made in OUT)
#   --scheds LIST schedulers (default: every registered one)
#   --quick       only the bundled default, the Crux example and the group
#                 example (no big trace)
#   --out DIR     work folder (default results/check-steady)
#   --against BASE_CCSIM  a change that must move no output (a code move):
#                 each case runs with BASE_CCSIM (a build of the commit
#                 before the change, kept in OUT/against-SHA, reused while
#                 that binary is the same) and with this build, and every
#                 output file must be byte for byte the same but for wall
#                 time, peak RSS and the version (compare-results.py
#                 --exact).  Its cases: the three above, examples/
#                 scenario-4hosts.json, the demo's regime (scripts/run.sh:
#                 the sample on lingjun-sample:oversub=4) over the 4
#                 minutes around its peak, and unless --quick the first 2 of
#                 the busiest 6 hours of the trace under --steady approx on
#                 both networks.
# Cases: the bundled default (2 hours of the sample), examples/crux-example1.json,
# examples/steady-group.json (two jobs sharing links that repeat: the
# skips of docs/engine.md §5c), and the busiest 6 hours of the trace (trace seconds 936000-957600) on
# crux-clos2 and crux-double-sided with the recorded hosts.
# Criteria (issue 19): cluster and allocated GPU utilization (summary and
# every interval) within 1e-6 absolute; per-job iterations within 1, and
# equal for jobs the fast-forward did not touch; every other number is
# reported with its largest relative difference.  Prints one line per run
# and the CPU seconds of both; exits 1 if a criterion fails.
# CCSIM=path/to/ccsim uses that binary instead of building build/ccsim.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
trace="" scheds="" quick=0 out=$root/results/check-steady against=""
while [ $# -gt 0 ]; do
    case "$1" in
        --trace) trace=$(realpath -m "$2"); shift 2 ;;
        --scheds) scheds=$2; shift 2 ;;
        --quick) quick=1; shift ;;
        --out) out=$(realpath -m "$2"); shift 2 ;;
        --against) against=$(realpath "$2"); shift 2 ;;
        -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
        *) echo "check-steady.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
ccsim=${CCSIM:+$(realpath "$CCSIM")}
cd "$root"
if [ -z "$ccsim" ]; then
    scripts/build.sh build >/dev/null
    ccsim=$root/build/ccsim
fi
[ -n "$scheds" ] || scheds=$("$ccsim" list 2>/dev/null | awk '/^schedulers/{s=1;next} s&&/^$/{s=0} s&&/^  [a-z]/{print $1}' | paste -sd, -)
mkdir -p "$out"
cases=("default|" "example|--scenario examples/crux-example1.json"
       "group|--scenario examples/steady-group.json")
if [ -n "$against" ]; then
    peak=$("$ccsim" trace load default | awk '$1 == "peak_at_s" { print $2 }')
    cases+=("4hosts|--scenario examples/scenario-4hosts.json"
            "demo|--topo lingjun-sample:oversub=4 --start $((peak - 120)) --end $((peak + 120))")
fi
if [ $quick = 0 ]; then
    if [ -z "$trace" ]; then
        trace=$out/trace
        [ -s "$trace/job.csv.gz" ] || "$ccsim" gen-trace --seed 1 --gzip --out "$trace" >/dev/null
    fi
    for net in crux-clos2 crux-double-sided; do
        topo="--topo $net:hosts_from=$trace/topo.csv.gz --trace $trace"
        if [ -n "$against" ]; then
            cases+=("approx2h-$net|$topo --start 936000 --end 943200 --steady approx")
        else
            cases+=("busiest6h-$net|$topo --start 936000 --end 957600")
        fi
    done
fi
cpu() { awk -F, '{printf "%.2f", $1 + $2}' "$1"; }
status=0
if [ -n "$against" ]; then
    base=$out/against-$(sha256sum "$against" | cut -c1-12)
    printf '%-28s %-17s %9s %9s %s\n' case scheduler cpu_base_s cpu_new_s result
    for c in "${cases[@]}"; do
        name=${c%%|*} args=${c#*|}
        for s in ${scheds//,/ }; do
            b=$base/$name/$s d=$out/new/$name/$s
            if [ ! -s "$b/time" ]; then
                rm -rf "$b"; mkdir -p "$b"
                # shellcheck disable=SC2086
                /usr/bin/time -f %U,%S -o "$b/time.tmp" "$against" run -q $args --sched "$s" --out "$b/out" >/dev/null
                mv "$b/time.tmp" "$b/time"
            fi
            rm -rf "$d"; mkdir -p "$d"
            # shellcheck disable=SC2086
            /usr/bin/time -f %U,%S -o "$d/time" "$ccsim" run -q $args --sched "$s" --out "$d/out" >/dev/null
            if res=$(python3 scripts/compare-results.py --exact "$b/out" "$d/out"); then :; else status=1; fi
            printf '%-28s %-17s %9s %9s %s\n' "$name" "$s" "$(cpu "$b/time")" "$(cpu "$d/time")" "$res"
        done
    done
    exit $status
fi
printf '%-28s %-17s %9s %9s %s\n' case scheduler cpu_ff_s cpu_off_s result
for c in "${cases[@]}"; do
    name=${c%%|*} args=${c#*|}
    for s in ${scheds//,/ }; do
        d=$out/$name/$s
        rm -rf "$d"; mkdir -p "$d"
        # shellcheck disable=SC2086
        /usr/bin/time -f %U,%S -o "$d/time-ff" "$ccsim" run -q $args --sched "$s" --out "$d/ff" >/dev/null
        # shellcheck disable=SC2086
        /usr/bin/time -f %U,%S -o "$d/time-off" "$ccsim" run -q $args --sched "$s" --no-fast-forward --out "$d/off" >/dev/null
        if res=$(python3 scripts/check-steady-compare.py "$d/ff" "$d/off"); then :; else status=1; fi
        printf '%-28s %-17s %9s %9s %s\n' "$name" "$s" "$(cpu "$d/time-ff")" "$(cpu "$d/time-off")" "$res"
    done
done
exit $status
