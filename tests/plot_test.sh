#!/usr/bin/env bash
# plot_test.sh - scripts/plot.py makes every figure, as PNG and SVG, from a
# sweep folder, a compare folder (one folder per scheduler) and a single run
# (files exist, are non-empty, PNGs start with the PNG signature), and skips
# a figure with a note when its input is missing.  Skipped (exit 77) when
# /usr/bin/python3 has no matplotlib.  Most results come from the fake
# worker (tests/fake_ccsim_run.sh: several topologies, controlled columns);
# when the binary has `ccsim run`, a real `ccsim compare` of
# examples/scenario-4hosts.json is plotted too.
# Usage: tests/plot_test.sh CCSIM_BINARY
set -euo pipefail
ccsim=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
plot=$here/../scripts/plot.py
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    echo "SKIP: /usr/bin/python3 has no matplotlib (apt-get install python3-matplotlib)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cp "$here/data/sweep_base.json" .
cat > sweep.json <<'JSON'
{"base": "sweep_base.json",
 "grid": {"topology": ["crux-clos2", "crux-double-sided"], "scheduler": ["ecmp", "crux"],
          "sim.seed": [1, 2]}}
JSON
CCSIM_SWEEP_WORKER=$here/fake_ccsim_run.sh "$ccsim" sweep sweep.json --out sweep -j 2 > /dev/null 2>&1

failures=0
figures="util_bars util_time slowdown_cdf link_occupancy"
check_figures() { # check_figures FIGDIR FIGURE...
    local dir=$1 f sig
    shift
    for f in "$@"; do
        for ext in png svg; do
            if [ ! -s "$dir/$f.$ext" ]; then
                echo "FAIL - $dir/$f.$ext missing or empty"
                failures=$((failures + 1))
            fi
        done
        sig=$(head -c 8 "$dir/$f.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
        if [ "$sig" != "89504e470d0a1a0a" ]; then
            echo "FAIL - $dir/$f.png is not a PNG ($sig)"
            failures=$((failures + 1))
        fi
    done
}

/usr/bin/python3 "$plot" sweep > /dev/null
check_figures sweep/figures $figures

# A compare folder: one run folder per scheduler and a combined summary.
mkdir compare
for s in ecmp crux; do
    run=$(awk -F, -v s=$s 'NR > 1 && $2 == "crux-clos2" && $3 == s && $4 == 1 { print $1 }' sweep/summary.csv)
    cp -r "sweep/runs/$run" "compare/$s"
done
cp sweep/summary.csv compare/summary.csv
/usr/bin/python3 "$plot" compare --out compare-figs > /dev/null
check_figures compare-figs $figures

# A single run, without links.csv: three figures and a note.
cp -r compare/crux single
rm single/links.csv
/usr/bin/python3 "$plot" single > /dev/null 2> single.err
check_figures single/figures util_bars util_time slowdown_cdf
if [ -e single/figures/link_occupancy.png ] || ! grep -q 'link_occupancy skipped' single.err; then
    echo "FAIL - a missing links.csv should skip link_occupancy with a note"
    failures=$((failures + 1))
fi

# Real results, when this ccsim can run: a compare of the example.
if "$ccsim" run --help >/dev/null 2>&1; then
    "$ccsim" compare --scenario "$here/../examples/scenario-4hosts.json" --out real > /dev/null 2>&1
    /usr/bin/python3 "$plot" real > /dev/null 2>&1
    check_figures real/figures $figures
    # A real sweep with zipped windows: every line has data.
    "$ccsim" sweep "$here/../examples/sweep-small.json" --out real-sweep -j 2 > /dev/null 2>&1
    /usr/bin/python3 "$plot" real-sweep > /dev/null 2> real-sweep.err
    check_figures real-sweep/figures $figures
    if grep -q 'no data' real-sweep.err; then
        echo "FAIL - empty lines in the example sweep's figures: $(cat real-sweep.err)"
        failures=$((failures + 1))
    fi
else
    echo "note: this ccsim has no 'run' yet; only fake results were plotted"
fi

# Axis labels from docs/usage.md's column dictionary; tick labels without
# paths; windows are groups of their own, never averaged together.
if ! /usr/bin/python3 - "$here/../scripts" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import plot
assert plot.label("gpu_util_cluster_frac", 80).startswith("cluster GPU utilization"), plot.LABELS
assert plot.short_topology("crux-clos2:hosts_from=/a/b/topo.csv.gz") == "crux-clos2:hosts_from=topo"
class R:
    def __init__(self, start, sched):
        self.row = {"run": "x", "scheduler": sched, "seed": "1", "scenario": "s",
                    "topology": "t", "sim_start_s": start, "sim_end_s": "9"}
        self.scheduler = sched
        self.topology = "t"
groups = plot.by_topology([R("0", "ecmp"), R("5", "ecmp"), R("0", "crux")])
assert len(groups) == 2, list(groups)
PY
then
    echo "FAIL - labels, tick names or groups"
    failures=$((failures + 1))
fi

# Not a results folder.
mkdir empty
if /usr/bin/python3 "$plot" empty 2> /dev/null; then
    echo "FAIL - an empty folder should be an error"
    failures=$((failures + 1))
fi
echo "plot_test: $failures failure(s)"
[ "$failures" -eq 0 ]
