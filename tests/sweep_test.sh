#!/usr/bin/env bash
# sweep_test.sh - integration tests of `ccsim sweep` and `ccsim merge`
# (suite "integration"): a sweep killed half-way and restarted completes
# without redoing finished runs and gives the same summary as an
# uninterrupted one; shards 0/3, 1/3, 2/3 merged (separate folders, and one
# shared folder) equal the unsharded sweep; merge names a missing and a
# duplicated run; a failing run is recorded with its error while the others
# complete.
# Usage: tests/sweep_test.sh CCSIM_BINARY
# The workers are the real `ccsim run` when this binary has it, else
# tests/fake_ccsim_run.sh (said on the first line of output).
set -euo pipefail
ccsim=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/data/sweep_base.json" "$here/data/sweep_small.json" "$here/data/sweep_bad.json" "$tmp/"
cd "$tmp"

if "$ccsim" run --help >/dev/null 2>&1; then
    echo "workers: the real 'ccsim run' ($ccsim)"
    real_worker=$ccsim
    unset CCSIM_SWEEP_WORKER
else
    echo "workers: tests/fake_ccsim_run.sh (this ccsim has no 'run' yet)"
    real_worker=$here/fake_ccsim_run.sh
    export CCSIM_SWEEP_WORKER=$real_worker
fi

failures=0
pass() { echo "ok - $1"; }
fail() { echo "FAIL - $1"; failures=$((failures + 1)); }
check() { # check NAME COMMAND...
    local name=$1
    shift
    if "$@"; then pass "$name"; else fail "$name"; fi
}

# A CSV without the columns that differ between identical runs (wall time,
# memory) and the scenario path column.
stable_csv() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) drop[i] = ($i == "wall_s" || $i == "peak_rss_bytes" || $i == "scenario") }
             { out = ""; n = 0
               for (i = 1; i <= NF; i++) if (!drop[i]) { out = out (n++ ? "," : "") $i }
               print out }' "$1"
}
same_csv() { diff <(stable_csv "$1") <(stable_csv "$2"); }
rows() { echo $(($(wc -l < "$1") - 1)); }
count() { # count PATTERN: files matching a glob
    local n=0 f
    for f in $1; do [ -e "$f" ] && n=$((n + 1)); done
    echo $n
}

# --- dry run and usage ----------------------------------------------------
"$ccsim" sweep --dry-run sweep_small.json > dry.txt
check "dry run lists 6 runs" test "$(wc -l < dry.txt)" -eq 6
check "dry run order: ecmp seed 1 first, ideal seed 3 last" \
    grep -q $'^0\t.*\tscheduler=ecmp\tsim.seed=1$' dry.txt
check "dry run last" grep -q $'^5\t.*\tscheduler=ideal\tsim.seed=3$' dry.txt
"$ccsim" sweep --dry-run --shard 1/3 sweep_small.json > dry1.txt
check "dry run of shard 1/3 lists runs 1 and 4" test "$(cut -f1 dry1.txt | tr '\n' ' ')" = "1 4 "
set +e
"$ccsim" sweep --shard 3/3 --out x sweep_small.json 2>/dev/null; st=$?
set -e
check "--shard 3/3 is a usage error (exit 2)" test "$st" -eq 2

# --- an uninterrupted sweep -------------------------------------------------
"$ccsim" sweep sweep_small.json --out full -j 2 > full.out 2> full.err
check "sweep exits 0" true
check "6 rows in summary.csv" test "$(rows full/summary.csv)" -eq 6
check "no failed runs" test "$(rows full/failed.csv)" -eq 0
check "leading columns run,scheduler,seed" grep -q '^run,scheduler,seed,' full/summary.csv
check "no duplicate columns" test "$(head -1 full/summary.csv | tr , '\n' | sort | uniq -d | wc -l)" -eq 0
check "gain over ecmp, 0 for ecmp itself" grep -q ',0$' <(grep ',ecmp,' full/summary.csv)
check "prints the plot command" grep -q 'scripts/plot.sh full' full.out
check "progress on stderr" grep -q 'sweep: 6/6 done, 0 failed' full.err
check "every run folder has its scenario" test "$(count 'full/runs/*/scenario.json')" -eq 6

# Running it again redoes nothing.
"$ccsim" sweep sweep_small.json --out full -j 2 > /dev/null 2> again.err
check "a finished sweep is not redone" grep -q '6 runs, 6 already finished, 0 to run' again.err

# --- a sweep that lasts seconds: its log gets the header once ----------------
# (ticks come every second; off a terminal they are written every 30 s, so
# this 3 s sweep logs the header and one line per run, nothing else)
SLOW_WORKER_REAL=$real_worker SLOW_WORKER_S=0.5 CCSIM_SWEEP_WORKER=$here/slow_worker.sh \
    "$ccsim" sweep sweep_small.json --out slow -j 1 > /dev/null 2> slow.err
check "the header is written once" test "$(grep -c 'to run$' slow.err)" -eq 1
check "one line per run" test "$(grep -c '(run .* ok)' slow.err)" -eq 6
check "and no other line" test "$(wc -l < slow.err)" -eq 8

# --- killed half-way, then restarted -----------------------------------------
export SLOW_WORKER_REAL=$real_worker SLOW_WORKER_S=0.4
CCSIM_SWEEP_WORKER=$here/slow_worker.sh "$ccsim" sweep sweep_small.json --out killed -j 1 \
    > /dev/null 2>&1 &
pid=$!
for _ in $(seq 200); do
    n=$(count 'killed/runs/*/summary.csv')
    [ "$n" -ge 2 ] && break
    sleep 0.05
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
sleep 0.5 # a worker killed with the sweep (PR_SET_PDEATHSIG) must not finish
finished=$(count 'killed/runs/*/summary.csv')
check "the kill came half-way ($finished of 6 finished)" test "$finished" -ge 2 -a "$finished" -lt 6
for f in killed/runs/*/summary.csv; do touch "$(dirname "$f")/marker"; done
"$ccsim" sweep sweep_small.json --out killed -j 2 > /dev/null 2> restart.err
check "the restart skips the finished runs" grep -q "6 runs, $finished already finished, $((6 - finished)) to run" restart.err
check "finished runs were not redone (markers kept)" test "$(count 'killed/runs/*/marker')" -eq "$finished"
check "restarted summary equals the uninterrupted one" same_csv full/summary.csv killed/summary.csv

# --- shards -----------------------------------------------------------------
for i in 0 1 2; do
    "$ccsim" sweep sweep_small.json --out "shard$i" --shard "$i/3" -j 1 > /dev/null 2>&1
done
"$ccsim" merge shard0 shard1 shard2 --out merged.csv 2> merge.err
check "merged shards equal the unsharded sweep" same_csv full/summary.csv merged.csv
# Three shards at once in one shared folder.
for i in 0 1 2; do
    "$ccsim" sweep sweep_small.json --out shared --shard "$i/3" -j 1 > /dev/null 2>&1 &
done
wait
"$ccsim" merge shared --out merged-shared.csv 2> /dev/null
check "three concurrent shards in one folder equal the unsharded sweep" \
    same_csv full/summary.csv merged-shared.csv

# --- merge: missing and duplicated runs ----------------------------------------
set +e
"$ccsim" merge shard0 shard1 --out m.csv 2> missing.err; st=$?
set -e
check "merge with a shard missing exits 1" test "$st" -eq 1
check "and writes nothing" test ! -e m.csv
ok=true
for name in $(cut -f2 < <("$ccsim" sweep --dry-run --shard 2/3 sweep_small.json)); do
    grep -q "run $name is missing" missing.err || ok=false
done
check "merge names each missing run" $ok
set +e
"$ccsim" merge shard0 shard1 shard2 shard1 > /dev/null 2> dup.err; st=$?
set -e
dup=$(cut -f2 < <("$ccsim" sweep --dry-run --shard 1/3 sweep_small.json) | head -1)
check "merge with a shard twice exits 1" test "$st" -eq 1
check "merge names the duplicated run" grep -q "run $dup appears more than once" dup.err

# --- a failing run ------------------------------------------------------------------
set +e
"$ccsim" sweep sweep_bad.json --out bad -j 2 > /dev/null 2> bad.err; st=$?
set -e
check "a sweep with failed runs exits 1" test "$st" -eq 1
check "the good runs completed" test "$(rows bad/summary.csv)" -eq 2
check "the failed runs are in failed.csv" test "$(grep -c ',no-such-scheduler,' bad/failed.csv)" -eq 2
check "with their error" grep -q 'no-such-scheduler' bad/runs/*/error.txt
check "and exit status" grep -q '^exit_status: 1' bad/runs/*/error.txt
set +e
"$ccsim" merge bad > /dev/null 2> badmerge.err; st=$?
set -e
check "merge reports the failed runs as missing, with their error" \
    grep -q 'failed run .*exit status 1' badmerge.err

# A run that writes its summary and then fails (a crash at exit) is failed,
# not finished: its summary is moved aside and the next invocation redoes it.
printf '#!/usr/bin/env bash\n"%s" "$@" && exit 3\n' "$real_worker" > exit3.sh
chmod +x exit3.sh
set +e
CCSIM_SWEEP_WORKER=$PWD/exit3.sh "$ccsim" sweep sweep_small.json --out exit3 -j 2 > /dev/null 2>&1
st=$?
set -e
check "a run failing after its summary is failed" test "$st" -eq 1 -a "$(rows exit3/failed.csv)" -eq 6
check "its summary is moved aside" test "$(count 'exit3/runs/*/summary.csv.failed')" -eq 6
"$ccsim" sweep sweep_small.json --out exit3 -j 2 > /dev/null 2> exit3.err
check "and the next invocation redoes it" grep -q '6 runs, 0 already finished, 6 to run' exit3.err

# A different sweep into a used folder is refused.
set +e
"$ccsim" sweep sweep_bad.json --out full > /dev/null 2> other.err; st=$?
set -e
check "a folder holding another sweep is refused" grep -q 'holds a different sweep' other.err

echo "sweep_test: $failures failure(s)"
[ "$failures" -eq 0 ]
