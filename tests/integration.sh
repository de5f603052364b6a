#!/usr/bin/env bash
# integration.sh - end-to-end checks of `ccsim run`, `ccsim compare` and
# `ccsim list` through the binary (meson suite "integration").
# Usage: tests/integration.sh CCSIM SOURCE_DIR
set -u
ccsim=$(realpath "$1")
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass=0

ok()   { pass=$((pass + 1)); }
bad()  { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect_fail NAME STATUS_RE MESSAGE_RE ARGS...: fails with an exit status
# matching STATUS_RE, prints MESSAGE_RE on stderr, leaves no output folder.
expect_fail() {
    local name=$1 status_re=$2 msg_re=$3
    shift 3
    local out="$tmp/out-$name"
    "$ccsim" "$@" --out "$out" -q >"$tmp/stdout" 2>"$tmp/stderr"
    local st=$?
    if ! [[ $st =~ ^($status_re)$ ]]; then bad "$name: exit status $st"; cat "$tmp/stderr"; return; fi
    if ! grep -Eq -- "$msg_re" "$tmp/stderr"; then bad "$name: message: $(cat "$tmp/stderr")"; return; fi
    if ! grep -q '^ccsim: ' "$tmp/stderr"; then bad "$name: message without 'ccsim: '"; return; fi
    if [ -e "$out" ]; then bad "$name: left $out behind"; return; fi
    ok
}

ex1="$src/examples/crux-example1.json"
cat > "$tmp/badmode.json" <<'J'
{"sim": {"mode": "fast"}}
J
printf '{"sim": {\n"mode": }' > "$tmp/syntax.json"
topo='"clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=1,nics=1,pcie=1"'
cat > "$tmp/big.json" <<J
{"topology": $topo, "trace": {"jobs": [
  {"id": "j1", "gpus": 9, "start_s": 0, "end_s": 5, "model": {"compute_s": 1}}]}}
J
cat > "$tmp/model.json" <<J
{"topology": $topo, "trace": {"jobs": [
  {"id": "j1", "gpus": 1, "start_s": 0, "end_s": 5, "model": "no-such-model"}]}}
J

# structured jobs the engine cannot run: named, exit 1, nothing written
structured() { # FILE GPUS STRUCTURE
    cat > "$tmp/$1" <<J
{"topology": $topo, "trace": {"jobs": [
  {"id": "s1", "gpus": $2, "start_s": 0, "end_s": 5, "model": {"structure": $3}}]}}
J
}
structured st_gpus.json 3 '{"tp": 1, "pp": 2, "dp": 2, "fwd_s": 1, "bwd_s": 1}'
structured st_layers.json 4 '{"pp": 4, "layers": 2, "fwd_s": 1, "bwd_s": 1}'
structured st_micro.json 2 '{"pp": 2, "vpp": 2, "layers": 4, "micro_batches": 3, "fwd_s": 1, "bwd_s": 1}'
structured st_experts.json 2 '{"dp": 2, "ep": 2, "experts": 3, "moe_layers": 1, "fwd_s": 1, "bwd_s": 1}'
structured st_tp.json 2 '{"tp": 2, "fwd_s": 1, "bwd_s": 1}'
structured st_short.json 1 '{"fwd_s": 1e-5, "bwd_s": 2e-5}'
structured st_embed.json 1 '{"fwd_s": 1, "bwd_s": 1, "embed_grad_bytes": 1e8}'
expect_fail st_gpus    '1' 'st_gpus.json: job s1: structure: tp x pp x dp = 1 x 2 x 2 = 4, but the job has 3 GPUs' run --scenario "$tmp/st_gpus.json"
expect_fail st_layers  '1' 'st_layers.json: job s1: structure.layers: 2 layers cannot fill pp x vpp = 4 x 1' run --scenario "$tmp/st_layers.json"
expect_fail st_micro   '1' 'st_micro.json: job s1: structure.micro_batches: the interleaved schedule \(vpp 2\) needs a multiple of pp = 2' run --scenario "$tmp/st_micro.json"
expect_fail st_experts '1' 'st_experts.json: job s1: structure.experts: 3 experts cannot be divided over ep = 2' run --scenario "$tmp/st_experts.json"
expect_fail st_tp      '1' 'job s1: structure.tp: a TP group of 2 GPUs is larger than a host \(1 GPUs\)' run --scenario "$tmp/st_tp.json"
expect_fail st_short   '1' 'st_short.json: job s1: structure: compute per GPU per iteration: 3e-05 is outside \[0.0001, 1000000\] s' run --scenario "$tmp/st_short.json"
expect_fail st_embed   '1' 'st_embed.json: job s1: structure.embed_grad_bytes: .* needs pp > 1, got pp 1' run --scenario "$tmp/st_embed.json"

expect_fail bad_key        '1|2' 'badmode.json: sim.mode: expected "window" or "work"' run --scenario "$tmp/badmode.json"
expect_fail bad_syntax     '1|2' 'syntax.json:2: not valid JSON' run --scenario "$tmp/syntax.json"
expect_fail no_file        '1|2' 'nope.json' run --scenario "$tmp/nope.json"
expect_fail unknown_sched  '1|2' "unknown scheduler 'nope'" run --scenario "$ex1" --sched nope
expect_fail unknown_sched2 '1|2' "unknown scheduler 'nope'" compare --scenario "$ex1" --scheds ecmp,nope
expect_fail unknown_model  '1|2' 'job j1' run --scenario "$tmp/model.json"
expect_fail too_big        '1|2' 'needs 9 GPUs but the topology has 4 \(5 short\)' run --scenario "$tmp/big.json"
expect_fail bad_option     '2' '--mode: expected' run --scenario "$ex1" --mode fast
expect_fail bad_channels   '2' '--channels: 0 is outside \[1, 32\]' run --scenario "$ex1" --channels 0
expect_fail bad_placement  '2' '--placement: expected "recorded", ' run --scenario "$ex1" --placement best
expect_fail bad_topo       '1|2' 'topology' run --scenario "$ex1" --topo "fat-tree:k=7"
expect_fail bad_oversub    '1|2' "oversub must be a non-negative decimal number, got '-1'" run --scenario "$ex1" --topo "crux-clos2:oversub=-1"
expect_fail bad_oversub2   '1|2' "oversub must be a non-negative decimal number, got 'abc'" run --scenario "$ex1" --topo "crux-double-sided:oversub=abc"

# a good run: Crux example 1, J1 high: 1808 busy GPU-s of 4 x 1203
if "$ccsim" run --scenario "$ex1" --out "$tmp/ex1" -q >/dev/null 2>"$tmp/stderr"; then
    for f in summary.csv jobs.csv timeseries.csv links.csv run.json; do
        [ -s "$tmp/ex1/$f" ] || bad "run: $f missing"
    done
    head -1 "$tmp/ex1/summary.csv" | grep -q '^scenario,topology,trace,scheduler,seed,mode,sim_start_s,sim_end_s,placement,channels,' || bad "summary header"
    grep -q ',1808,601,' "$tmp/ex1/summary.csv" && ok || bad "ex1 busy/iterations: $(tail -1 "$tmp/ex1/summary.csv")"
    ls -A "$tmp/ex1" | grep -q '\.tmp' && bad "temp files left" || ok
    # both jobs cross tor0 -> agg while running together: both at risk; J1
    # (high priority) runs as alone, J2 waits behind it: 1 of 2 slowed
    python3 - "$tmp/ex1/run.json" <<'PY' && ok || bad "ex1 contention block"
import json, sys
c = json.load(open(sys.argv[1]))["contention"]
assert (c["jobs"], c["jobs_at_risk"], c["jobs_slowed_by_others"]) == (2, 2, 1), c
PY
else
    bad "run ex1: $(cat "$tmp/stderr")"
fi

# calibration (docs/traces.md "Contention risk"): the generator's
# allocator (whole-host pods on any free host, --topo-aware no) was built
# to reproduce one published number of the real trace: at least 49.5% of
# its GPU jobs ran on two racks or more (label contention, from the real
# worker.csv).  The full-size trace of seed 1 must land within 5 points of
# it (seeds 1-3 spread over 1.6 points; the published figure is a lower
# bound).  Its jobs and GPUs at risk have no published value it was fitted
# to (Crux's 36.3% / 51% are 12-36 points below, docs/traces.md says why):
# only their ordering against gathering is tested, below.
if "$ccsim" gen-trace --seed 1 --out "$tmp/g16" >/dev/null 2>&1 &&
   "$ccsim" trace stats "$tmp/g16" --csv - > "$tmp/g16.csv" 2>"$tmp/stderr"; then
    python3 - "$tmp/g16.csv" <<'PY' && ok || bad "calibration: $(grep -E '^racks,' "$tmp/g16.csv" | tr '\n' ' ')"
import sys
v = {l.split(",")[1]: float(l.split(",")[2]) for l in open(sys.argv[1]) if l.startswith("racks,")}
assert abs(v["label_contention_frac"] - 0.495) <= 0.05, v
PY
else
    bad "calibration: $(cat "$tmp/stderr")"
fi
# the same trace with topology-aware gathering (--topo-aware yes): jobs
# that fit a rack stay under one ToR and share no link, so both shares
# fall, by far more than seed-to-seed noise (15 points)
if "$ccsim" gen-trace --seed 1 --topo-aware yes --out "$tmp/g16y" >/dev/null 2>&1 &&
   "$ccsim" trace stats "$tmp/g16y" --csv - > "$tmp/g16y.csv" 2>"$tmp/stderr"; then
    python3 - "$tmp/g16.csv" "$tmp/g16y.csv" <<'PY' && ok || bad "topo-aware yes: $(grep contention, "$tmp/g16y.csv" | tr '\n' ' ')"
import sys
d, y = ({l.split(",")[1]: float(l.split(",")[2]) for l in open(f) if l.startswith("contention,")}
        for f in sys.argv[1:3])
assert y["jobs"] == d["jobs"] and y["gpus"] == d["gpus"], (d, y)
assert y["jobs_at_risk_frac"] <= d["jobs_at_risk_frac"] - 0.15, (d, y)
assert y["gpus_at_risk_frac"] <= d["gpus_at_risk_frac"] - 0.15, (d, y)
PY
else
    bad "topo-aware yes: $(cat "$tmp/stderr")"
fi
# gathering with spilling jobs on whole racks first (--spill whole-racks, a
# rule of gathering): a job larger than a rack shares no ToR with another
# spilling job, so the GPUs at risk fall, by more than 20 points (the
# large jobs hold most GPUs)
if "$ccsim" gen-trace --seed 1 --topo-aware yes --spill whole-racks --out "$tmp/g16w" >/dev/null 2>&1 &&
   "$ccsim" trace stats "$tmp/g16w" --csv - > "$tmp/g16w.csv" 2>"$tmp/stderr"; then
    python3 - "$tmp/g16y.csv" "$tmp/g16w.csv" <<'PY' && ok || bad "spill whole-racks: $(grep contention, "$tmp/g16w.csv" | tr '\n' ' ')"
import sys
d, w = ({l.split(",")[1]: float(l.split(",")[2]) for l in open(f) if l.startswith("contention,")}
        for f in sys.argv[1:3])
assert w["jobs"] == d["jobs"] and w["gpus"] == d["gpus"], (d, w)
assert w["gpus_at_risk_frac"] <= d["gpus_at_risk_frac"] - 0.20, (d, w)
PY
else
    bad "spill whole-racks: $(cat "$tmp/stderr")"
fi
"$ccsim" trace stats "$tmp/g16" --risk-paths some >/dev/null 2>"$tmp/stderr"
rc=$?
[ "$rc" = 2 ] && grep -q -- '--risk-paths: expected "chosen" or "candidates", got "some"' "$tmp/stderr" &&
    ok || bad "--risk-paths some: rc $rc, $(cat "$tmp/stderr")"
for bad_opt in "--spill sideways" "--small-pods best"; do
    "$ccsim" gen-trace $bad_opt --out "$tmp/g_bad" >/dev/null 2>"$tmp/stderr"
    rc=$?
    [ "$rc" = 2 ] && grep -q -- "${bad_opt% *}: expected .*, got \"${bad_opt#* }\"" "$tmp/stderr" &&
        [ ! -e "$tmp/g_bad" ] && ok || bad "$bad_opt: rc $rc, $(cat "$tmp/stderr")"
done
"$ccsim" gen-trace --topo-aware maybe --out "$tmp/g_bad" >/dev/null 2>"$tmp/stderr"
rc=$?
[ "$rc" = 2 ] && grep -q -- '--topo-aware: expected "yes" or "no", got "maybe"' "$tmp/stderr" &&
    [ ! -e "$tmp/g_bad" ] && ok || bad "--topo-aware maybe: rc $rc, $(cat "$tmp/stderr")"

# trace load's peak: the instant the default window is centred on (its
# 61260-68460 = 64860 -+ 3600; docs/usage.md), holding 876 GPUs
"$ccsim" trace load default > "$tmp/load.txt" 2>&1
grep -q '^peak_gpus  *876$' "$tmp/load.txt" && grep -q '^peak_at_s  *64860$' "$tmp/load.txt" &&
    ok || bad "trace load peak: $(grep peak "$tmp/load.txt")"

# determinism through the binary: same scenario, same bytes
"$ccsim" run --scenario "$ex1" --out "$tmp/ex1b" -q --sched ecmp >/dev/null 2>&1
"$ccsim" run --scenario "$ex1" --out "$tmp/ex1c" -q --sched ecmp >/dev/null 2>&1
for f in jobs.csv timeseries.csv links.csv; do
    cmp -s "$tmp/ex1b/$f" "$tmp/ex1c/$f" && ok || bad "determinism: $f differs"
done

# gzip output
"$ccsim" run --scenario "$ex1" --out "$tmp/gz" -q --gzip >/dev/null 2>&1
[ -s "$tmp/gz/jobs.csv.gz" ] && gzip -t "$tmp/gz/jobs.csv.gz" && ok || bad "gzip output"

# compare: a table and a combined summary with one row per scheduler
if "$ccsim" compare --scenario "$ex1" --scheds ecmp,fixed,ideal --out "$tmp/cmp" -q >"$tmp/table" 2>"$tmp/stderr"; then
    grep -q '^ideal ' "$tmp/table" && ok || bad "compare table: $(cat "$tmp/table")"
    # fixed keeps the scenario's decisions (J1 high: 37.57%) after ecmp ran
    grep -Eq '^fixed +0\.3757 ' "$tmp/table" && ok || bad "compare fixed: $(cat "$tmp/table")"
    [ "$(wc -l < "$tmp/cmp/summary.csv")" -eq 4 ] && ok || bad "compare summary rows"
    [ -s "$tmp/cmp/fixed/jobs.csv" ] && ok || bad "compare per-scheduler folder"
else
    bad "compare: $(cat "$tmp/stderr")"
fi

# compare -j 3 runs the schedulers in parallel and writes the same files
if "$ccsim" compare --scenario "$ex1" --scheds ecmp,fixed,ideal,crux -j 3 --out "$tmp/cmpj" -q >/dev/null 2>"$tmp/stderr" &&
   "$ccsim" compare --scenario "$ex1" --scheds ecmp,fixed,ideal,crux --out "$tmp/cmp1" -q >/dev/null 2>>"$tmp/stderr"; then
    same=1
    for s in ecmp fixed ideal crux; do
        for f in jobs.csv timeseries.csv links.csv; do
            cmp -s "$tmp/cmpj/$s/$f" "$tmp/cmp1/$s/$f" || same=0
        done
    done
    [ $same = 1 ] && ok || bad "compare -j 3 differs from compare"
    python3 - "$tmp/cmpj/summary.csv" "$tmp/cmp1/summary.csv" <<'PY' && ok || bad "compare -j 3 summary differs"
import csv, sys
a, b = ([{k: v for k, v in r.items() if k not in ("wall_s", "peak_rss_bytes")}
         for r in csv.DictReader(open(f))] for f in sys.argv[1:3])
assert a == b and len(a) == 4, (a, b)
PY
else
    bad "compare -j: $(cat "$tmp/stderr")"
fi
expect_fail bad_jobs 2 "--jobs: -1 is outside 0 or \\[1, 1024\\]" compare --scenario "$ex1" -j -1

# Messages of compare (docs/usage.md): two 8-GPU jobs naming hosts
# fat-tree:k=4 lacks are placed by locality, each on a host of its own, so
# they share no link: every scheduler ties, no job is slowed by another.
# The warning is printed once for both runs, the same with -j 2 as -j 1.
cat > "$tmp/unknown.json" <<'J'
{"topology": "fat-tree:k=4", "trace": {"jobs": [
  {"id": "j1", "gpus": 8, "hosts": ["nohost"], "start_s": 0, "end_s": 5, "model": {"compute_s": 1}},
  {"id": "j2", "gpus": 8, "hosts": ["gone"], "start_s": 0, "end_s": 5, "model": {"compute_s": 1}}]}}
J
for j in 1 2; do
    "$ccsim" compare --scenario "$tmp/unknown.json" --scheds ecmp,crux -j $j -q -o "$tmp/unk$j" \
        >"$tmp/unk$j.out" 2>"$tmp/unk$j.err"
    [ "$(cat "$tmp/unk$j.err")" = 'ccsim: warning: all 2 runs: 2 jobs name a host the topology lacks and were placed by the placement policy (first: job j1: host nohost)' ] \
        && ok || bad "compare -j $j warnings: $(cat "$tmp/unk$j.err")"
    grep -q '^jobs: 2 ran on 128 GPUs (0 skipped: outside the window or no room); placement recorded: 0 on their recorded hosts, 2 placed by locality (2 naming hosts the topology lacks, 0 whose hosts were busy)$' "$tmp/unk$j.out" \
        && ok || bad "compare -j $j placement line: $(cat "$tmp/unk$j.out")"
    grep -q '^All 2 schedulers tie. Under ecmp 0 of 2 jobs share' "$tmp/unk$j.out" &&
        grep -q 'no job is slowed by another' "$tmp/unk$j.out" && ok || bad "tie note: $(cat "$tmp/unk$j.out")"
done
# ... and a sweep prints each finished run's warnings once, with its name
printf '{"base": "%s", "grid": {"scheduler": ["ecmp", "crux"]}}\n' "$tmp/unknown.json" > "$tmp/unk-sweep.json"
"$ccsim" sweep "$tmp/unk-sweep.json" --out "$tmp/unks" -j 2 >/dev/null 2>"$tmp/unks.err"
[ "$(grep -c '^ccsim: warning: run [a-z]*_[0-9a-f]*: 2 jobs name a host the topology lacks' "$tmp/unks.err")" = 2 ] \
    && ok || bad "sweep warnings: $(cat "$tmp/unks.err")"

# Progress off a terminal: whole lines on stderr (every 10 s; every 1 ms
# here through CCSIM_PROGRESS_LOG_S), from run and from compare -j
CCSIM_PROGRESS_LOG_S=0.001 "$ccsim" run --start 61260 --end 61560 --no-fast-forward \
    -o "$tmp/prog-run" >/dev/null 2>"$tmp/prog-run.err"
grep -Eq '^ccsim: ecmp: t=[0-9]+/61560 s \( *[0-9.]+%\)  jobs [0-9]+/[0-9]+  [0-9]+ ev/s  ETA [0-9]+ s$' "$tmp/prog-run.err" \
    && ! grep -q $'\r' "$tmp/prog-run.err" && ok || bad "run progress off a terminal: $(cat "$tmp/prog-run.err")"
CCSIM_PROGRESS_LOG_S=0.001 "$ccsim" compare --start 61260 --end 61560 --no-fast-forward --scheds ecmp,ideal \
    -j 2 -o "$tmp/prog-cmp" >/dev/null 2>"$tmp/prog-cmp.err"
grep -Eq '^ccsim: compare: [0-9]/2 done,.*ETA [0-9]+ s$' "$tmp/prog-cmp.err" && ok ||
    bad "compare -j progress off a terminal: $(cat "$tmp/prog-cmp.err")"

# run --progress-file keeps "NOW START END" while running (the sweep's
# ETA reads it) and removes it at the end
"$ccsim" run -q --start 61260 --end 61860 --no-fast-forward --progress-file "$tmp/prog" \
    --out "$tmp/progrun" >/dev/null 2>"$tmp/stderr" &
pid=$!
seen=""
while kill -0 $pid 2>/dev/null; do
    [ -s "$tmp/prog" ] && seen=$(cat "$tmp/prog" 2>/dev/null) && [ -n "$seen" ] && break
    sleep 0.1
done
wait $pid && ok || bad "run --progress-file: $(cat "$tmp/stderr")"
[[ $seen =~ ^[0-9.e+]+\ 61260\ 61860$ ]] && ok || bad "progress file: '$seen'"
[ ! -e "$tmp/prog" ] && ok || bad "progress file left behind"

# results never mix: a non-empty folder is refused (exit 1, nothing
# touched) unless --force, which replaces it whole
touch "$tmp/cmp/mine.txt"
"$ccsim" compare --scenario "$ex1" --scheds ecmp --out "$tmp/cmp" -q >/dev/null 2>"$tmp/stderr"
[ $? -eq 1 ] && grep -q "^ccsim: .*cmp: folder is not empty" "$tmp/stderr" && ok || bad "not refused: $(cat "$tmp/stderr")"
[ -e "$tmp/cmp/fixed/jobs.csv" ] && [ -e "$tmp/cmp/mine.txt" ] && ok || bad "refused run touched the folder"
if "$ccsim" compare --scenario "$ex1" --scheds ecmp --out "$tmp/cmp" --force -q >/dev/null 2>"$tmp/stderr"; then
    [ ! -e "$tmp/cmp/fixed" ] && [ ! -e "$tmp/cmp/mine.txt" ] && [ "$(wc -l < "$tmp/cmp/summary.csv")" -eq 2 ] \
        && ok || bad "--force did not replace the folder whole: $(ls "$tmp/cmp")"
    ls -A "$tmp" | grep -q '^\.cmp\.' && bad "--force left a staging folder" || ok
else
    bad "compare --force: $(cat "$tmp/stderr")"
fi
(cd "$tmp" && "$ccsim" run --scenario "$ex1" --out . --force -q >/dev/null 2>&1)
[ $? -eq 1 ] && [ -e "$tmp/cmp/summary.csv" ] && ok || bad "--force replaced the working directory"

# default folder: results/SCENARIO_TOPOLOGY_SCHEDULERS_HASH, in the working directory
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && "$ccsim" run --scenario "$ex1" --sched fixed -q >/dev/null 2>&1 \
    && "$ccsim" run --scenario "$ex1" --sched fixed --seed 2 -q >/dev/null 2>&1)
n=$(ls "$tmp/cwd/results" | grep -Ec '^crux-example1_clos2-tors=2-aggs=1-[^/]*_fixed_[0-9a-f]{6}$')
[ "$n" -eq 2 ] && ok || bad "default folder names: $(ls "$tmp/cwd/results")"

# timelines through the command line; jobs.csv names the hosts
if "$ccsim" run --scenario "$ex1" --out "$tmp/tl" -q --timeline t.json --timeline-span 0:12 --flows >/dev/null 2>"$tmp/stderr"; then
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['traceEvents']) > 20" "$tmp/tl/t.json" \
        && ok || bad "timeline JSON"
    [ "$(head -1 "$tmp/tl/flows.csv")" = "job_id,transfer,start_s,end_s,bytes,priority,path" ] && ok || bad "flows.csv header"
    grep -q ',h0 h2$' "$tmp/tl/jobs.csv" && ok || bad "jobs.csv host_names: $(cat "$tmp/tl/jobs.csv")"
else
    bad "run --timeline: $(cat "$tmp/stderr")"
fi
# the scenario key "timeline" does the same; a bad key in it is bad data (1)
python3 - "$ex1" "$tmp/tl.json" "$tmp/tlbad.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["trace"]["jobs"][0]["hosts"] = s["trace"]["jobs"][0]["hosts"]  # as is
s["timeline"] = {"file": "s.json", "jobs": ["j2"], "span": [0, 12], "flows": True}
json.dump(s, open(sys.argv[2], "w"))
s["timeline"] = {"file": "s.json", "spam": 1}
json.dump(s, open(sys.argv[3], "w"))
PY
if "$ccsim" run --scenario "$tmp/tl.json" --out "$tmp/tls" -q >/dev/null 2>"$tmp/stderr"; then
    grep -q '"job j2:' "$tmp/tls/s.json" && ! grep -q '"job j1:' "$tmp/tls/s.json" && [ -s "$tmp/tls/flows.csv" ] \
        && ok || bad "scenario timeline: $(ls "$tmp/tls")"
else
    bad "scenario timeline: $(cat "$tmp/stderr")"
fi
expect_fail bad_tl_key '1' 'tlbad.json: timeline.spam: unknown key' run --scenario "$tmp/tlbad.json"
expect_fail bad_span '2' '--timeline-span: expected START:END' run --scenario "$ex1" --timeline t.json --timeline-span 5:1
expect_fail span_alone '2' 'need --timeline or --flows' run --scenario "$ex1" --timeline-span 0:1

# one meaning per command: the bundled sample inspected by name; gen-trace
# says what it wrote; help in the C locale has no '?' for "…"
"$ccsim" trace stats default >"$tmp/stats" 2>"$tmp/stderr" && grep -q 'on lingjun-sample' "$tmp/stats" \
    && ok || bad "trace stats default: $(cat "$tmp/stderr")"
"$ccsim" gen-trace --seed 2 --days 1 --out "$tmp/gt" | grep -q "^wrote $tmp/gt/: job.csv" \
    && ok || bad "gen-trace silent"
LC_ALL=C "$ccsim" trace --help | grep -q 'OPTION?' && bad "help prints ? in the C locale" || ok

# list
"$ccsim" list >"$tmp/list"
grep -q '^  ecmp' "$tmp/list" && ok || bad "list: no ecmp"
# it fits a terminal and explains its columns
awk 'length($0) > 80 { exit 1 }' "$tmp/list" && ok || bad "list: a line over 80 columns"
grep -q 'start: share of compute done' "$tmp/list" && grep -q 'BERT-base .*\*' "$tmp/list" \
    && ok || bad "list: no column legend or audit mark"

# the bundled default (sample trace, its own Lingjun topology, ecmp, the
# 2 hours around the peak); under the sanitizers (ASAN_OPTIONS set by
# scripts/test.sh) only the first 15 minutes of that window
default_args=(run -q --out "$tmp/default")
if [ -n "${ASAN_OPTIONS:-}" ]; then
    default_args+=(--start 61260 --end 62160)
fi
if "$ccsim" "${default_args[@]}" >"$tmp/stdout" 2>"$tmp/stderr"; then
    [ -s "$tmp/default/summary.csv" ] && ok || bad "default: no summary.csv"
    grep -q ',lingjun-sample,' "$tmp/default/summary.csv" && ok || bad "default topology: $(tail -1 "$tmp/default/summary.csv")"
    grep -Eq '"jobs_on_recorded_hosts":[[:space:]]*[1-9]' "$tmp/default/run.json" && ok || bad "default: no job on its recorded hosts"
else
    bad "default run: $(cat "$tmp/stderr")"
fi

echo "integration: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
