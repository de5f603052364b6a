#!/usr/bin/env bash
# reproduce_crux_test.sh - scripts/reproduce-crux.sh end to end on two
# minutes of the bundled sample with three schedulers: both Crux networks
# run with the trace's recorded hosts (hosts_from), the table has a section
# per network with the paper's ranges and Crux's gain over Sincronia, the
# figures exist, --docs replaces exactly the generated block of a document,
# and a document without the markers is refused; --steady approx runs every
# run in approximate mode, in a folder of its own; --sensitivity on a
# one-minute sweep gives the figure (also copied to img/ beside
# the --docs document) and both tables, and the bundled
# sensitivity sweep names every point of the figure.  Skipped (77) without
# matplotlib.
# Usage: tests/reproduce_crux_test.sh CCSIM_BINARY
set -euo pipefail
ccsim=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    echo "SKIP: /usr/bin/python3 has no matplotlib (apt-get install python3-matplotlib)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
ok() { :; }
bad() { echo "FAIL: $*"; failures=$((failures + 1)); }

printf 'before\n<!-- BEGIN reproduce-crux table (scripts/reproduce-crux.sh --docs) -->\nold\n<!-- END reproduce-crux table -->\nafter\n' > "$tmp/doc.md"
CCSIM=$ccsim "$here/../scripts/reproduce-crux.sh" --trace "$here/../traces/data" \
    --start 61260 --end 61380 --scheds ecmp,sincronia,crux -j 2 --out "$tmp/rc" \
    --docs "$tmp/doc.md" > "$tmp/out.txt" 2>&1 || { cat "$tmp/out.txt"; bad "script failed"; }

t=$tmp/rc/table.md
for topo in crux-clos2 crux-double-sided; do
    grep -q "^### $topo\$" "$t" && ok || bad "no section $topo"
    grep -q "^\`$topo:hosts_from=.*topo.csv.gz\`\$" "$t" && ok || bad "$topo without hosts_from"
done
grep -q "paper: +13% to +23%" "$t" && ok || bad "no Clos range"
grep -q "paper: +4% to +7%" "$t" && ok || bad "no double-sided range"
grep -q "^Crux over the baselines: sincronia [+-][0-9.]*%" "$t" && ok || bad "no gain line"
[ "$(grep -c '^| \(ecmp\|sincronia\|crux\) |' "$t")" = 6 ] && ok || bad "not 6 result rows"
for run in "$tmp"/rc/runs/runs/*/run.json; do
    grep -q '"jobs_on_recorded_hosts":[[:space:]]*[1-9]' "$run" && ok || bad "$run: no job on its recorded hosts"
done
[ -s "$tmp/rc/figures/util_bars.png" ] && ok || bad "no bar figure"
head -1 "$tmp/doc.md" | grep -qx before && tail -1 "$tmp/doc.md" | grep -qx after && ok || bad "doc edges changed"
grep -q '^old$' "$tmp/doc.md" && bad "old block kept" || ok
grep -q '^### crux-clos2$' "$tmp/doc.md" && ok || bad "table not spliced"
echo plain > "$tmp/plain.md"
if python3 "$here/../scripts/crux_table.py" "$tmp/rc/runs/summary.csv" --docs "$tmp/plain.md" \
    > /dev/null 2> "$tmp/err.txt"; then
    bad "document without markers accepted"
fi
grep -q "no generated-table markers" "$tmp/err.txt" && ok || bad "marker error: $(cat "$tmp/err.txt")"
# --steady approx: every run in approximate mode (its run.json says so and
# reports the jumps), in a folder of its own; the exact folder refuses it,
# and an unknown mode is a usage error.
CCSIM=$ccsim "$here/../scripts/reproduce-crux.sh" --trace "$here/../traces/data" \
    --start 61260 --end 61380 --scheds ecmp --topos crux-clos2 --steady approx -j 2 \
    --out "$tmp/ra" > "$tmp/ra.txt" 2>&1 || { cat "$tmp/ra.txt"; bad "--steady approx failed"; }
for run in "$tmp"/ra/runs/runs/*/run.json; do
    python3 -c 'import json, sys; j = json.load(open(sys.argv[1]))
assert j["config"]["sim"]["steady"] == "approx" and "steady_approx_jumps" in j' "$run" \
        && ok || bad "$run: not an approx run"
done
[ "$(ls -d "$tmp"/ra/runs/runs/*/ | wc -l)" = 1 ] && ok || bad "--steady approx: not 1 run"
if CCSIM=$ccsim "$here/../scripts/reproduce-crux.sh" --trace "$here/../traces/data" \
    --start 61260 --end 61380 --scheds ecmp,sincronia,crux --steady approx --out "$tmp/rc" \
    > /dev/null 2> "$tmp/mix.txt"; then
    bad "approx runs mixed into an exact folder"
fi
grep -q "holds --steady exact runs" "$tmp/mix.txt" && ok || bad "mix error: $(cat "$tmp/mix.txt")"
rc=0
CCSIM=$ccsim "$here/../scripts/reproduce-crux.sh" --steady fast > /dev/null 2> "$tmp/bad.txt" || rc=$?
[ "$rc" = 2 ] && ok || bad "--steady fast: exit $rc, not 2"
grep -q 'expected "exact" or "approx", got "fast"' "$tmp/bad.txt" && ok || bad "--steady message"
# --sensitivity on a one-minute sweep of the same shape as the example, its
# recorded point naming the sample's topo.csv relative to the sweep file.
mkdir -p "$tmp/sens/data"
cp "$here/../traces/data/topo.csv.gz" "$tmp/sens/data/"
cat > "$tmp/sens/s.json" <<'JSON'
{"base": {"sim": {"start_s": 64260, "end_s": 64320}}, "grid": {"scheduler": ["ecmp", "crux"]},
 "zip": [{"topology": ["crux-clos2", "crux-clos2", "crux-clos2:oversub=2",
                       "crux-clos2:hosts_from=data/topo.csv.gz", "crux-clos2"],
          "sim.channels": [1, 2, 2, 2, 2],
          "sim.placement": ["locality", "locality", "locality", "recorded", "packed"]}]}
JSON
printf '<!-- BEGIN crux-sensitivity table (scripts/plot_sensitivity.py --docs) -->\n<!-- END crux-sensitivity table -->\n' > "$tmp/sdoc.md"
CCSIM=$ccsim "$here/../scripts/reproduce-crux.sh" --sensitivity --sweep "$tmp/sens/s.json" -j 2 \
    --out "$tmp/rs" --docs "$tmp/sdoc.md" > "$tmp/sens.txt" 2>&1 || { cat "$tmp/sens.txt"; bad "--sensitivity failed"; }
st=$tmp/rs/sensitivity/table.md
[ "$(grep -c '^| [12]:1 | [12] |' "$st")" = 3 ] && ok || bad "not 3 network rows: $(cat "$st")"
for pol in recorded locality packed; do
    grep -q "^| $pol | 0\.[0-9]\{4\} | 0\.[0-9]\{4\} |" "$st" && ok || bad "no placement row $pol"
done
grep -q '"jobs_on_recorded_hosts":[[:space:]]*[1-9]' "$tmp"/rs/sensitivity/runs/ecmp_topology=topo_*/run.json \
    && ok || bad "recorded point not on the trace's hosts (hosts_from path not resolved?)"
[ -s "$tmp/rs/sensitivity/crux-sensitivity.png" ] && ok || bad "no sensitivity figure"
grep -q '^| recorded |' "$tmp/sdoc.md" && ok || bad "sensitivity table not spliced"
cmp -s "$tmp/rs/sensitivity/crux-sensitivity.png" "$tmp/img/crux-sensitivity.png" && ok \
    || bad "--docs did not copy the figure to img/ beside the document"
# The bundled sweep has every point of the figure: channels 1/2/4/8 x
# oversub 1/2/4 placed by locality, every placement policy, six schedulers.
"$ccsim" sweep --dry-run "$here/../examples/sweep-sensitivity.json" > "$tmp/dry.txt" || bad "dry run"
python3 - "$tmp/dry.txt" <<'PY' || bad "examples/sweep-sensitivity.json lacks points"
import sys
pts = set()
for line in open(sys.argv[1]):
    kv = dict(f.split("=", 1) for f in line.rstrip("\n").split("\t")[2:])
    pts.add((kv["scheduler"], kv["topology"].split(":hosts_from")[0], kv["sim.channels"], kv["sim.placement"]))
scheds = ["ecmp", "sincronia", "crux-pa", "taccl", "crux", "ideal"]
for s in scheds:
    for o in ("crux-clos2", "crux-clos2:oversub=2", "crux-clos2:oversub=4"):
        for c in ("1", "2", "4", "8"):
            assert (s, o, c, "locality") in pts, (s, o, c)
    for p in ("recorded", "packed", "random", "spread", "fragmented"):
        assert (s, "crux-clos2", "2", p) in pts, (s, p)
assert len(pts) == 6 * 17, len(pts)
PY

[ "$failures" = 0 ] && echo "reproduce-crux: all checks passed"
exit $((failures > 0))
