#!/usr/bin/env bash
# sweep_robust_test.sh - crash safety and determinism of `ccsim sweep`
# (suite "integration"): -j 1 and -j 2 give byte-identical result files
# (wall time, memory and the event count's wall-clock twin aside); a sweep
# -j 2 SIGKILLed midway and resumed equals an uninterrupted one, no run lost
# or duplicated; a second writer on a folder is refused naming the first;
# a SIGKILLed run's staging folder is reclaimed by the next run; a run into a full disk (a 64 KiB tmpfs, when root may
# mount one) fails clearly and leaves nothing behind.
# Not here: resume with -j 1, shards, merge (sweep_test.sh).
# Usage: tests/sweep_robust_test.sh CCSIM_BINARY
set -uo pipefail
ccsim=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
mnt=""
cleanup() { [ -n "$mnt" ] && umount "$mnt" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
cp "$here/data/sweep_base.json" "$here/data/sweep_small.json" "$tmp/"
cd "$tmp" || exit 1
failures=0
check() { # check NAME COMMAND...
    local name=$1
    shift
    if "$@"; then echo "ok - $name"; else echo "FAIL - $name"; failures=$((failures + 1)); fi
}
count() { local n=0 f; for f in $1; do [ -e "$f" ] && n=$((n + 1)); done; echo $n; }
# A CSV without the columns that differ between identical runs.
stable_csv() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) drop[i] = ($i == "wall_s" || $i == "peak_rss_bytes") }
             { out = ""; n = 0
               for (i = 1; i <= NF; i++) if (!drop[i]) { out = out (n++ ? "," : "") $i }
               print out }' "$1"
}
# run.json without wall time and memory.
stable_json() { grep -v -E '"(wall_s|peak_rss_bytes)":' "$1"; }

# --- -j 1 and -j 2: byte-identical result files --------------------------------
"$ccsim" sweep sweep_small.json --out j1 -j 1 >/dev/null 2>&1
"$ccsim" sweep sweep_small.json --out j2 -j 2 >/dev/null 2>&1
check "-j 1 and -j 2 both finish 6 runs" test "$(count 'j1/runs/*/summary.csv')" -eq 6 \
    -a "$(count 'j2/runs/*/summary.csv')" -eq 6
check "summary.csv identical (wall and memory aside)" \
    diff <(stable_csv j1/summary.csv) <(stable_csv j2/summary.csv)
same=true
for d in j1/runs/*/; do
    name=$(basename "$d")
    for f in jobs.csv timeseries.csv links.csv scenario.json; do
        cmp -s "$d/$f" "j2/runs/$name/$f" || { echo "differs: $name/$f"; same=false; }
    done
    diff -q <(stable_json "$d/run.json") <(stable_json "j2/runs/$name/run.json") >/dev/null ||
        { echo "differs: $name/run.json"; same=false; }
done
check "every run's jobs, timeseries, links, scenario and run.json byte-identical" $same

# --- SIGKILL of a sweep -j 2 midway, then resume ------------------------------------
export SLOW_WORKER_REAL=$ccsim SLOW_WORKER_S=0.5
CCSIM_SWEEP_WORKER=$here/slow_worker.sh "$ccsim" sweep sweep_small.json --out killed -j 2 \
    >/dev/null 2>&1 &
pid=$!
for _ in $(seq 400); do
    [ "$(count 'killed/runs/*/summary.csv')" -ge 2 ] && break
    sleep 0.02
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
sleep 1 # workers die with the sweep (PR_SET_PDEATHSIG); none may finish now
finished=$(count 'killed/runs/*/summary.csv')
check "killed midway ($finished of 6 finished)" test "$finished" -ge 2 -a "$finished" -lt 6
"$ccsim" sweep sweep_small.json --out killed -j 2 >/dev/null 2>resume.err
check "the resume runs only the rest" \
    grep -q "6 runs, $finished already finished, $((6 - finished)) to run" resume.err
check "merged summary equals the uninterrupted one" \
    diff <(stable_csv j2/summary.csv) <(stable_csv killed/summary.csv)
check "no run lost or duplicated (6 rows, 6 distinct runs)" \
    test "$(tail -n +2 killed/summary.csv | cut -d, -f1 | sort -u | wc -l)" -eq 6 \
    -a "$(tail -n +2 killed/summary.csv | wc -l)" -eq 6
check "no temporary file left in any run folder" test "$(find killed -name '.*tmp*' | wc -l)" -eq 0

# --- two writers, one folder: the second is refused at once, naming the
# first's pid; the first completes intact -------------------------------------------
CCSIM_SWEEP_WORKER=$here/slow_worker.sh "$ccsim" sweep sweep_small.json --out two -j 2 \
    >/dev/null 2>two-a.err &
pid=$!
for _ in $(seq 200); do [ -e .two.ccsim-lock ] && break; sleep 0.02; done
start=$(date +%s%N)
"$ccsim" sweep sweep_small.json --out two -j 2 >/dev/null 2>two-b.err
st=$?
took_ms=$((($(date +%s%N) - start) / 1000000))
check "a second sweep on the folder exits 1 ($st) within a second ($took_ms ms)" \
    test "$st" -eq 1 -a "$took_ms" -lt 1000
check "naming the first one's pid" grep -q "^ccsim: two: in use by ccsim pid $pid on " two-b.err
"$ccsim" run --scenario sweep_base.json -q -o two --force >/dev/null 2>two-c.err
check "a run --force on the folder is refused too" grep -q "in use by ccsim pid $pid" two-c.err
wait "$pid"
check "the first completes: exit 0, 6 rows" test $? -eq 0 -a "$(tail -n +2 two/summary.csv | wc -l)" -eq 6
check "no run folder holds an error.txt" test "$(count 'two/runs/*/error.txt')" -eq 0
check "no lock file left" test ! -e .two.ccsim-lock

# --- leftovers: a run SIGKILLed mid-write leaves its staging folder; the
# next run on the same parent removes it (its pid is gone) -----------------------------
mkdir kr
"$ccsim" run --no-fast-forward --interval 1 -q -o kr/killed >/dev/null 2>&1 &
pid=$!
for _ in $(seq 200); do ls -A kr | grep -q '^\.killed\.new-' && break; sleep 0.02; done
sleep 0.3
kill -KILL "$pid"
wait "$pid" 2>/dev/null
check "the SIGKILLed run left its staging folder" test "$(ls -A kr | grep -c "^\.killed\.new-p$pid")" -eq 1
"$ccsim" run --scenario sweep_base.json -q -o kr/next >/dev/null 2>&1
check "the next run on the parent reclaimed it (kr holds: $(ls -A kr | tr '\n' ' '))" \
    test "$(ls -A kr)" = next

# --- a full disk -------------------------------------------------------------------------
mkdir disk
if [ "$(id -u)" -ne 0 ]; then
    echo "ok - full disk: SKIPPED (needs root to mount a small tmpfs)"
elif ! mount -t tmpfs -o size=64k tmpfs disk 2>mount.err; then
    echo "ok - full disk: SKIPPED (cannot mount a tmpfs here: $(head -1 mount.err))"
else
    mnt=$PWD/disk
    # the bundled default writes about 90 KB of CSV: more than the disk holds
    "$ccsim" run -q -o disk/out >/dev/null 2>full.err
    st=$?
    check "a run into a full disk fails (exit $st)" test "$st" -eq 1
    check "saying why" grep -q -i 'no space left on device' full.err
    check "and leaves nothing on the disk" test -z "$(ls -A disk)"
    umount disk && mnt=""
fi

echo "sweep_robust_test: $failures failure(s)"
[ "$failures" -eq 0 ]
