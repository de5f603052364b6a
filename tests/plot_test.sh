#!/usr/bin/env bash
# plot_test.sh - scripts/plot.py makes every figure, as PNG and SVG, from a
# sweep folder, a compare folder (one folder per scheduler) and a single run
# (files exist, are non-empty, PNGs start with the PNG signature), and skips
# a figure with a note when its input is missing.  Skipped (exit 77) when
# /usr/bin/python3 has no matplotlib.  Most results come from the fake
# worker (tests/fake_ccsim_run.sh: several topologies, controlled columns);
# when the binary has `ccsim run`, a real `ccsim compare` of
# examples/scenario-4hosts.json is plotted too.  scripts/plot_sensitivity.py
# draws its figure and tables from a fake sensitivity sweep.
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
import plot_sensitivity as ps
# curves equal within 5e-5 at every point share a legend entry
got = ps.coinciding([("a", [(1, 0.5), (2, 0.6)]), ("b", [(1, 0.50004), (2, 0.6)]),
                     ("c", [(1, 0.5), (2, 0.61)])])
assert got == [(0, ["a", "b"]), (2, ["c"])], got
assert ps.oversub_of("crux-clos2:hosts=9,oversub=2.5") == 2.5 and ps.oversub_of("crux-clos2") == 1
PY
then
    echo "FAIL - labels, tick names or groups"
    failures=$((failures + 1))
fi

# The sensitivity figure (scripts/plot_sensitivity.py) from a fake sweep of
# the shape of examples/sweep-sensitivity.json: every table cell is the
# summary's value, the figure is a PNG, --docs replaces only its block.
cat > sens.json <<'JSON'
{"base": "sweep_base.json", "grid": {"scheduler": ["ecmp", "crux"]},
 "zip": [{"topology": ["crux-clos2", "crux-clos2", "crux-clos2:oversub=2", "crux-clos2:oversub=2",
                       "crux-clos2", "crux-clos2"],
          "sim.channels": [1, 2, 1, 2, 2, 2],
          "sim.placement": ["locality", "locality", "locality", "locality", "packed", "spread"]}]}
JSON
CCSIM_SWEEP_WORKER=$here/fake_ccsim_run.sh "$ccsim" sweep sens.json --out sens -j 2 > /dev/null 2>&1
printf 'before\n<!-- BEGIN crux-sensitivity table (scripts/plot_sensitivity.py --docs) -->\nold\n<!-- END crux-sensitivity table -->\nafter\n' > doc.md
/usr/bin/python3 "$here/../scripts/plot_sensitivity.py" sens --out sens-fig/s.png --docs doc.md \
    > sens.md 2> sens.err || { cat sens.err; echo "FAIL - plot_sensitivity"; failures=$((failures + 1)); }
check_figure_png() {
    local sig
    sig=$(head -c 8 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')
    [ "$sig" = "89504e470d0a1a0a" ] || { echo "FAIL - $1 is not a PNG"; failures=$((failures + 1)); }
}
check_figure_png sens-fig/s.png
if ! /usr/bin/python3 - sens/summary.csv sens.md <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
table = open(sys.argv[2]).read().splitlines()
u = {(r["topology"], r["channels"], r["placement"], r["scheduler"]):
     f'{float(r["gpu_util_allocated_frac"]):.4f}' for r in rows}
net = [l for l in table if l.startswith("| 1:1 |") or l.startswith("| 2:1 |")]
assert len(net) == 4, net
for l in net:
    c = [x.strip() for x in l.strip("|").split("|")]
    topo = "crux-clos2" if c[0] == "1:1" else "crux-clos2:oversub=2"
    assert c[2] == u[(topo, c[1], "locality", "ecmp")] and c[3] == u[(topo, c[1], "locality", "crux")], l
    gain = 100 * (float(c[3]) / float(c[2]) - 1)  # rounded inputs: within 0.02 points
    assert abs(float(c[4].rstrip("%")) - gain) < 0.02, l
pl = {l.split("|")[1].strip(): l for l in table if l.startswith("| ") and "placement" not in l
      and l.split("|")[1].strip() in ("locality", "packed", "spread")}
assert sorted(pl) == ["locality", "packed", "spread"], table
for pol, l in pl.items():
    c = [x.strip() for x in l.strip("|").split("|")]
    assert c[1] == u[("crux-clos2", "2", pol, "ecmp")] and c[2] == u[("crux-clos2", "2", pol, "crux")], l
PY
then
    echo "FAIL - sensitivity tables do not match summary.csv: $(cat sens.md)"
    failures=$((failures + 1))
fi
if ! head -1 doc.md | grep -qx before || ! tail -1 doc.md | grep -qx after \
    || grep -qx old doc.md || ! grep -q '^| 2:1 | 2 |' doc.md; then
    echo "FAIL - --docs did not replace exactly the sensitivity block"
    failures=$((failures + 1))
fi
if /usr/bin/python3 "$here/../scripts/plot_sensitivity.py" sweep 2> sens-bad.err \
    || ! grep -q "no column 'channels'" sens-bad.err; then
    echo "FAIL - a sweep without channels/placement should be refused: $(cat sens-bad.err)"
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
