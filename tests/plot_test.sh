#!/usr/bin/env bash
# plot_test.sh - scripts/plot.py end to end: every figure, as PNG and PDF
# with the values it draws (NAME.data.csv), from a sweep folder, a compare
# folder (one folder per scheduler) and a single run; a figure whose input
# is missing is skipped with a note; a real compare and a real sweep of the
# examples draw every line.  The values themselves are checked against
# hand-worked numbers in python/tests/test_figures.py.  Skipped (exit 77)
# when /usr/bin/python3 lacks matplotlib or pandas.  Fake results come from
# tests/fake_ccsim_run.sh; scripts/plot_sensitivity.py draws its figure and
# tables from a fake sensitivity sweep.
# Usage: tests/plot_test.sh CCSIM_BINARY
set -euo pipefail
ccsim=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
plot=$here/../scripts/plot.py
if ! /usr/bin/python3 -c 'import matplotlib, pandas' 2>/dev/null; then
    echo "SKIP: /usr/bin/python3 lacks matplotlib or pandas (apt-get install python3-matplotlib python3-pandas)"
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
        for ext in png pdf data.csv; do
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
        if [ "$(head -c 5 "$dir/$f.pdf" 2>/dev/null)" != "%PDF-" ]; then
            echo "FAIL - $dir/$f.pdf is not a PDF"
            failures=$((failures + 1))
        fi
    done
}

/usr/bin/python3 "$plot" sweep > /dev/null 2> sweep.err
check_figures sweep/figures $figures
# topology and scheduler vary, the seed is averaged: 2 x 2 bars of 2 runs
if ! grep -q 'groups by topology; mean over 2 runs per value (averaged: seed; seeds 1, 2)' sweep.err \
    || [ "$(tail -n +2 sweep/figures/util_bars.data.csv | wc -l)" != 4 ]; then
    echo "FAIL - the fake sweep's grouping: $(cat sweep.err)"
    failures=$((failures + 1))
fi

# A compare folder: one run folder per scheduler and a combined summary.
mkdir compare
for s in ecmp crux; do
    run=$(awk -F, -v s=$s 'NR > 1 && $2 == "crux-clos2" && $3 == s && $4 == 1 { print $1 }' sweep/summary.csv)
    cp -r "sweep/runs/$run" "compare/$s"
done
{ head -1 compare/ecmp/summary.csv; tail -n +2 compare/ecmp/summary.csv; tail -n +2 compare/crux/summary.csv; } > compare/summary.csv
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

# Real results: a compare of the example, and a real sweep with zipped
# windows (each window a group of its own, every line with data).
"$ccsim" compare --scenario "$here/../examples/scenario-4hosts.json" --out real > /dev/null 2>&1
/usr/bin/python3 "$plot" real > /dev/null 2>&1
check_figures real/figures $figures
"$ccsim" sweep "$here/../examples/sweep-small.json" --out real-sweep -j 2 > /dev/null 2>&1
/usr/bin/python3 "$plot" real-sweep > /dev/null 2> real-sweep.err
check_figures real-sweep/figures $figures
if ! grep -q 'groups by collective_model, sim_start_s, sim_end_s; mean over 2 runs' real-sweep.err; then
    echo "FAIL - the example sweep's groups: $(cat real-sweep.err)"
    failures=$((failures + 1))
fi

# Labels from docs/usage.md's column dictionary, tick labels without paths.
if ! PYTHONPATH=$here/../python /usr/bin/python3 - "$here/../scripts" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from ccsim.columns import label
from ccsim.groups import short_value
assert label("gpu_util_cluster_frac", 80).startswith("cluster GPU utilization")
assert short_value("topology", "crux-clos2:hosts_from=/a/b/topo.csv.gz") == "crux-clos2:hosts_from=topo"
import plot_sensitivity as ps
# curves equal within 5e-5 at every point share a legend entry
got = ps.coinciding([("a", [(1, 0.5), (2, 0.6)]), ("b", [(1, 0.50004), (2, 0.6)]),
                     ("c", [(1, 0.5), (2, 0.61)])])
assert got == [(0, ["a", "b"]), (2, ["c"])], got
assert ps.oversub_of("crux-clos2:hosts=9,oversub=2.5") == 2.5 and ps.oversub_of("crux-clos2") == 1
PY
then
    echo "FAIL - labels, tick names or sensitivity helpers"
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
