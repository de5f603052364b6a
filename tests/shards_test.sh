#!/usr/bin/env bash
# shards_test.sh - integration tests of runs split in time (`ccsim run
# --shards N`, docs/cluster.md "Long replays split in time"; suite
# "integration"):
#  - jobs that never share a link: the merged outputs equal the unsplit
#    run's (iterations exactly, every other number to 1e-9);
#  - two identical jobs sharing a link: the unsplit run's iteration time is
#    the one derived by hand, and the shards reproduce it, each job within
#    one iteration per shard bound;
#  - the same seed gives the same files; --shard-only and a second call
#    resume (finished shards are not run again) to the same result;
#  - bad requests are refused before anything runs (exit 2), a folder of
#    another run is refused (exit 1);
#  - a sweep point with sim.shards is N tasks and a merge, also when the
#    tasks are dealt out with --shard I/N and merged by `ccsim merge`.
# Usage: tests/shards_test.sh CCSIM_BINARY SOURCE_ROOT
set -euo pipefail
ccsim=$(realpath "$1")
src=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
alone=$src/tests/data/shards_alone.json
pair=$src/tests/data/shards_pair.json

failures=0
pass() { echo "ok - $1"; }
fail() { echo "FAIL - $1"; failures=$((failures + 1)); }
check() { # check NAME COMMAND...
    local name=$1
    shift
    if "$@"; then pass "$name"; else fail "$name"; fi
}
py() { /usr/bin/python3 - "$@"; }

# same_run A B: the two folders hold the same results: summary.csv (all
# but wall_s, events, peak_rss_bytes), jobs.csv, timeseries.csv and
# links.csv cell by cell, whole numbers exactly and other numbers to a
# relative 1e-9 (a counter summed from another origin rounds differently
# in the last digits).
same_run() {
    py "$1" "$2" <<'PY'
import csv, sys
def cells(a, b):
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if x == int(x) and y == int(y) and abs(x) < 1e6:   # counts: exactly
        return x == y
    return abs(x - y) <= 1e-9 * max(abs(x), abs(y), 1e-300)
skip = {"wall_s", "events", "peak_rss_bytes"}
ok = True
for f in ("summary.csv", "jobs.csv", "timeseries.csv", "links.csv"):
    ra = list(csv.DictReader(open(f"{sys.argv[1]}/{f}")))
    rb = list(csv.DictReader(open(f"{sys.argv[2]}/{f}")))
    if len(ra) != len(rb):
        print(f"{f}: {len(ra)} rows against {len(rb)}"); ok = False; continue
    for i, (x, y) in enumerate(zip(ra, rb)):
        for k in x:
            if k not in skip and not cells(x[k], y[k]):
                print(f"{f} row {i + 1} {k}: {x[k]} against {y[k]}"); ok = False
sys.exit(0 if ok else 1)
PY
}

# --- Jobs that never contend: exact -----------------------------------------
# Every job runs as alone, so its iterations start at its start plus whole
# iterations alone; the shard starts each job running at its warm-up on
# that grid and places it where the whole run did, so each shard replays
# the unsplit run's events (docs/cluster.md).  The bounds 250, 500, 750 s
# cut running iterations of a, b, c and e (the data keep every iteration
# end at least 1e-3 s away from a bound: an end within float rounding of
# one could fall on either side).
"$ccsim" run -q --scenario "$alone" -o alone_1 >/dev/null
"$ccsim" run -q --scenario "$alone" -o alone_4 --shards 4 -j 2 >/dev/null
check "alone: 4 shards equal the unsplit run" same_run alone_1 alone_4
check "alone: scripts/shard-errors.py reports no error" grep -q \
    "cluster utilization 0.751423 -> 0.751423 (+0.00e+00.*slowdown error max 0.00e+00" \
    <("$src/scripts/shard-errors.py" alone_1 alone_4)
check "alone: every shard started from the whole run's placements, none sharing a link" py \
    alone_4/run.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sharded"]
assert s["shards"] == 4 and s["bounds_s"] == [0, 250, 500, 750, 1000], s["bounds_s"]
assert [x["jobs_resumed_at_start"] for x in s["shard"]] == [0, 3, 3, 4], s["shard"]
assert all(x["jobs_resumed_sharing_links"] == 0 for x in s["shard"])
PY
# 3 shards of the 100 intervals: bounds at intervals floor(100 k / 3) = 33
# and 66, i.e. 330 s and 660 s.
"$ccsim" run -q --scenario "$alone" -o alone_3a --shards 3 --steady approx >/dev/null
check "alone: 3 shards, bounds at 330 and 660 s" py alone_3a/run.json <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["sharded"]["bounds_s"] == [0, 330, 660, 1000]
PY
"$ccsim" run -q --scenario "$alone" -o alone_1a --steady approx >/dev/null
check "alone: 3 shards equal the unsplit run too (approximate mode)" same_run alone_1a alone_3a

# --- Reproducible and resumable ---------------------------------------------
"$ccsim" run -q --scenario "$alone" -o alone_4b --shards 4 >/dev/null
check "same seed, same bytes (jobs, time series, links)" \
    cmp -s alone_4/jobs.csv alone_4b/jobs.csv
check "same seed, same time series" cmp -s alone_4/timeseries.csv alone_4b/timeseries.csv
"$ccsim" run -q --scenario "$alone" -o part --shards 4 --shard-only 1 >/dev/null
"$ccsim" run -q --scenario "$alone" -o part --shards 4 --shard-only 3 >/dev/null
check "--shard-only writes only its shard, no merged run" \
    test -f part/shards/1/summary.csv -a -f part/shards/3/summary.csv -a ! -e part/summary.csv
cp part/shards/1/run.json part_shard1.json
out=$("$ccsim" run -q --scenario "$alone" -o part --shards 4)
check "the same command resumes: only shards 0 and 2 run" grep -q "(2 run now)" <<<"$out"
check "a finished shard is not run again" cmp -s part/shards/1/run.json part_shard1.json
check "the resumed run equals the uninterrupted one" same_run alone_4 part
out=$("$ccsim" run -q --scenario "$alone" -o part --shards 4)
check "a finished run merges again, running nothing" grep -q "(0 run now)" <<<"$out"

# --- Refused ------------------------------------------------------------------
refused() { # refused NAME STATUS ARGS...: exits STATUS, writes no folder
    local name=$1 want=$2
    shift 2
    rm -rf refused_out
    local got=0
    "$ccsim" run -q --scenario "$alone" -o refused_out "$@" >/dev/null 2>err.txt || got=$?
    if [ "$got" = "$want" ] && [ ! -e refused_out ] && [ -s err.txt ]; then
        pass "refused: $name ($(head -1 err.txt))"
    else
        fail "refused: $name (exit $got, want $want)"
        cat err.txt
    fi
}
refused "--shards 0" 2 --shards 0
refused "--shards -3" 2 --shards -3
refused "--shards x" 2 --shards x
refused "--shards 101 on 100 intervals" 2 --shards 101
refused "--shards in work mode" 2 --shards 2 --mode work
refused "--shards with a timeline" 2 --shards 2 --timeline t.json
refused "--shard-only past the last shard" 2 --shards 4 --shard-only 4
refused "-j -1" 2 --shards 2 -j -1
st=0
"$ccsim" run -q --scenario "$alone" -o alone_100 --shards 100 -j 2 >/dev/null || st=$?
check "100 shards of one interval each are allowed" test "$st" = 0
check "... and equal the unsplit run" same_run alone_1 alone_100
mkdir other && touch other/x
st=0
"$ccsim" run -q --scenario "$alone" -o other --shards 2 >/dev/null 2>&1 || st=$?
check "a non-empty folder of something else is refused" test "$st" = 1
st=0
"$ccsim" run -q --scenario "$alone" -o part --shards 4 --seed 2 >/dev/null 2>err.txt || st=$?
check "resuming with another configuration is refused" \
    grep -q "another run" err.txt
check "... with exit 1" test "$st" = 1

# --- Two jobs sharing a link: within the documented error ----------------------
# a and b compute C = 1 s, then send S = 1.25e9 B over the 100 Gbps s1-s2
# link (S/B = 0.1 s) after a fixed latency L (alpha + path).  Alone an
# iteration is P = C + L + S/B.  b starts at 29.75 s; a, alone until then,
# is 27 iterations and delta = 29.75 - 27 P into its 28th, so b's transfer
# starts delta after a's.  Max-min sharing: a runs alone for delta, then
# both at B/2; a ends at L + 2 S/B - delta after its start, b at L + 2 S/B
# after a's start, delta after a.  Both then repeat with period
#     P' = C + L + 2 S/B - delta,
# the offset delta kept for ever.  With L = 1e-5 s (the run's isolated
# iteration, 1.10001 s, minus C + S/B): P = 1.10001, delta = 0.04973,
# P' = 1.15028 s.  Each shard resumes both jobs on their own isolated
# grids, i.e. b delta after a (mod P): the same pattern, shifted in time,
# so each job's count can move by at most one iteration at each of the 3
# bounds, and b's mean iteration time is P' in every shard.
"$ccsim" run -q --scenario "$pair" -o pair_1 >/dev/null
"$ccsim" run -q --scenario "$pair" -o pair_4 --shards 4 >/dev/null
check "pair: the unsplit run's period is the hand-derived P'" py pair_1/jobs.csv <<'PY'
import csv, sys
j = {r["job_id"]: r for r in csv.DictReader(open(sys.argv[1]))}
P = 1.10001
delta = 29.75 - 27 * P
want = 1.0 + 1e-5 + 2 * 0.1 - delta        # 1.15028
assert abs(float(j["a"]["isolated_iter_s"]) - P) < 1e-9, j["a"]["isolated_iter_s"]
assert abs(float(j["b"]["mean_iter_s"]) - want) < 1e-6, (j["b"]["mean_iter_s"], want)
PY
check "pair: shards within one iteration per bound, the same period" py \
    pair_1/jobs.csv pair_4/jobs.csv pair_1/summary.csv pair_4/summary.csv <<'PY'
import csv, sys
u = {r["job_id"]: r for r in csv.DictReader(open(sys.argv[1]))}
s = {r["job_id"]: r for r in csv.DictReader(open(sys.argv[2]))}
for k in u:
    du = int(s[k]["iterations"]) - int(u[k]["iterations"])
    assert abs(du) <= 3, (k, du)
    # one iteration is C = 1 s of busy time on 16 GPUs
    assert abs(float(s[k]["busy_gpu_s"]) - float(u[k]["busy_gpu_s"])) <= 3 * 16.0, k
assert abs(float(s["b"]["mean_iter_s"]) - float(u["b"]["mean_iter_s"])) < 1e-6
su = next(csv.DictReader(open(sys.argv[3])))
ss = next(csv.DictReader(open(sys.argv[4])))
# 2 jobs x 3 bounds x 16 GPU-s over 32 GPUs x 1000 s
bound = 2 * 3 * 16.0 / (32 * 1000)
d = abs(float(ss["gpu_util_cluster_frac"]) - float(su["gpu_util_cluster_frac"]))
assert d <= bound, (d, bound)
PY

# --- Through a sweep -------------------------------------------------------------
cat > sweep.json <<EOF
{"base": "$alone", "grid": {"sim.shards": [1, 3]}}
EOF
check "a split point is 3 tasks in --dry-run" test "$("$ccsim" sweep --dry-run sweep.json | wc -l)" = 4
check "... each named by its shard" grep -q "shard=2/3" <("$ccsim" sweep --dry-run sweep.json)
"$ccsim" sweep sweep.json --out sw -j 2 >/dev/null 2>&1
runs=(sw/runs/*)
check "the sweep merged the split run" test -f "${runs[1]}/summary.csv" -a -d "${runs[1]}/shards"
check "... equal to the unsplit point" same_run "${runs[0]}" "${runs[1]}"
"$ccsim" sweep sweep.json --out sw2 --shard 0/2 >/dev/null 2>&1
"$ccsim" sweep sweep.json --out sw2 --shard 1/2 >/dev/null 2>&1
"$ccsim" merge sw2 --out sw2/merged.csv >/dev/null 2>&1
check "tasks dealt out with --shard I/N merge into the same summary" py \
    sw/summary.csv sw2/merged.csv <<'PY'
import csv, sys
skip = {"wall_s", "events", "peak_rss_bytes"}
a = list(csv.DictReader(open(sys.argv[1])))
b = list(csv.DictReader(open(sys.argv[2])))
assert len(a) == len(b) == 2
for x, y in zip(a, b):
    assert {k: v for k, v in x.items() if k not in skip} == \
           {k: v for k, v in y.items() if k not in skip}, (x, y)
PY

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
