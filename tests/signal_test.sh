#!/usr/bin/env bash
# signal_test.sh - SIGTERM and SIGINT at a random moment of every long
# command (suite "integration"): each must die of the signal (exit status
# 128 + N) within a second and leave nothing behind (no output folder, no
# temporary, no lock file).  The moment is drawn in a bounded window after
# the start and printed, so a failure can be replayed (SIGNAL_TEST_SEED).
# Not here: what each command writes when not interrupted (the other suites).
# Usage: tests/signal_test.sh CCSIM_BINARY SOURCE_DIR
set -u
ccsim=$(realpath "$1")
src=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
RANDOM=${SIGNAL_TEST_SEED:-$$}
echo "signal_test: seed ${SIGNAL_TEST_SEED:-$$}"
fails=0
pass=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { echo "FAIL - $*"; fails=$((fails + 1)); }

# interrupt NAME SIG MIN_MS SPAN_MS CLEAN ARGS...: start `ccsim ARGS` in
# work/, send SIG at MIN_MS + a random part of SPAN_MS, require exit 128+N
# within a second of it and, when CLEAN is "clean", work/ empty afterwards
# (nothing but the inputs copied there first, named in keep.txt).
interrupt() {
    local name=$1 sig=$2 min_ms=$3 span_ms=$4 clean=$5
    shift 5
    local at_ms=$((min_ms + RANDOM % span_ms))
    (cd work && exec "$ccsim" "$@" >/dev/null 2>"../$name.err") &
    local pid=$!
    sleep "$(printf '%d.%03d' $((at_ms / 1000)) $((at_ms % 1000)))"
    if ! kill -0 "$pid" 2>/dev/null; then
        bad "$name: ended before the signal at $at_ms ms ($(cat "$name.err"))"
        return
    fi
    local t0=$(date +%s%N)
    kill -"$sig" "$pid"
    wait "$pid"
    local st=$? took=$((($(date +%s%N) - t0) / 1000000))
    local want=$((128 + $(kill -l "$sig")))
    local left
    left=$(cd work && find . -mindepth 1 | grep -v -x -F -f ../keep.txt | sort | head -5 | tr '\n' ' ')
    if [ "$st" != "$want" ]; then bad "$name: SIG$sig at $at_ms ms: exit $st, expected $want ($(cat "$name.err"))"
    elif [ "$took" -ge 1000 ]; then bad "$name: SIG$sig at $at_ms ms: took $took ms to die"
    elif [ "$clean" = clean ] && [ -n "$left" ]; then bad "$name: SIG$sig at $at_ms ms: left $left"
    else ok "$name: SIG$sig at $at_ms ms, exit $st after $took ms${left:+, kept $left}"; fi
}

# fresh FILES...: an empty work/ with FILES copied in (kept as inputs)
fresh() {
    rm -rf work && mkdir work
    : > keep.txt
    for f in "$@"; do cp -r "$f" work/ && echo "./$(basename "$f")" >> keep.txt; done
}

# run: the bundled default event by event, long enough to be inside it
fresh
interrupt run_term TERM 300 1500 clean run --no-fast-forward --interval 1 -q -o out
fresh
interrupt run_int INT 300 1500 clean run --no-fast-forward --interval 1 -q -o out
# compare, one thread and two (every worker thread must stop)
fresh
interrupt compare_j1 TERM 300 1500 clean compare --scheds ecmp,crux --no-fast-forward -q -o out
fresh
interrupt compare_j2 TERM 300 1500 clean compare --scheds ecmp,crux --no-fast-forward -j 2 -q -o out
# gen-trace: a large request, signalled while it generates or writes
fresh
interrupt gen_large TERM 200 3000 clean gen-trace --days 366 --scale 20 --out trace
fresh
interrupt gen_write TERM 100 1500 clean gen-trace --days 16 --scale 10 --gzip --out trace
# predict: the largest graph allowed (1e5 operators: about 1.1 CPU s, linear,
# so the signal comes within its first 0.45 s)
python3 - <<'PY'
import json
ops = [{"type": "linear", "flops": 8e9, "bytes_read": 4e6, "bytes_written": 4e6,
        "config": {"cin": 1024, "cout": 1024}, "preds": [i - 1] if i else []} for i in range(100000)]
json.dump({"batch": 8, "ops": ops}, open("graph.json", "w"))
PY
fresh graph.json
interrupt predict TERM 50 400 clean predict graph.json
# export-packet: a long event-by-event run (100,000 s of 10 ms iterations,
# about 8 s of a plain build; 20,000 s once ended within the window)
python3 - "$src/examples/scenario-4hosts.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for j in s["trace"]["jobs"]:
    j["end_s"] = 100000
    j["model"]["compute_s"] = 0.01
s["sim"]["end_s"] = 100000
json.dump(s, open("long.json", "w"))
PY
fresh long.json
interrupt export_packet TERM 300 1500 clean export-packet long.json -o out
# optimal-gap with --output: its journal (finished cases, for --resume) is
# all it keeps; no temporary
fresh
interrupt optimal_gap TERM 300 1500 journal optimal-gap --cases 50 --window 5 -j 2 --output og -q
if [ "$(cd work && ls -A)" = og ] && [ -z "$(cd work/og && ls -A | grep -v -x cases.journal)" ]; then
    ok "optimal-gap kept only its journal"
else bad "optimal-gap left $(cd work && find . -mindepth 1 | tr '\n' ' ')"; fi
# sweep: workers get SIGTERM and remove their temporaries; the finished
# runs, sweep.json and the run folders' scenarios stay for the resume
cat > sweep.json <<'J'
{"base": {"sim": {"fast_forward": false, "interval_s": 1}}, "grid": {"sim.seed": [1, 2, 3, 4]}}
J
fresh sweep.json
interrupt sweep TERM 500 1500 kept sweep sweep.json --out sw -j 2
stale=$(cd work && find . \( -name '.*tmp*' -o -name '*.ccsim-lock' -o -name '.*.new-*' \) | head -3)
if [ -z "$stale" ]; then ok "sweep: no temporary, staging folder or lock file left"
else bad "sweep left $stale"; fi
unfinished=$(for d in work/sw/runs/*/; do [ -e "$d/summary.csv" ] || ls -A "$d"; done | sort -u | tr '\n' ' ')
if [ -z "$unfinished" ] || [ "$unfinished" = "scenario.json " ]; then ok "sweep: unfinished runs hold only their scenario"
else bad "sweep: unfinished runs hold $unfinished"; fi

echo "signal_test: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
