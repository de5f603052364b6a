#!/bin/sh
# workload_cli.sh - `ccsim workload explain` and `--job-model` end to end:
# numbers worked out by hand, the catalog path, bad input (suite
# "integration").  Usage: workload_cli.sh CCSIM
set -u
ccsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# value KEY FILE: the value of a key,value line
value() { awk -F, -v k="$1" '$1 == k { print $2 }' "$2"; }
# near A B TOL: |A - B| <= TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= t) }'; }
check() { near "$(value "$1" "$2")" "$3" "$4" || fail "$2: $1 = $(value "$1" "$2"), expected $3"; }

# 1F1B, p 4, m 8, fwd 0.01 s, bwd 0.02 s, no traffic: (m + p - 1)(f + b) =
# 11 x 0.03 = 0.33 s; compute m (f + b) = 0.24 s; bubble 0.09 s.
cat > "$tmp/pp.json" <<'EOF'
{"topology": "clos2:tors=1,aggs=1,hosts_per_tor=1",
 "trace": {"jobs": [{"id": "p", "gpus": 4, "start_s": 0, "end_s": 10,
   "model": {"structure": {"tp": 1, "pp": 4, "dp": 1, "micro_batches": 8,
     "fwd_s": 0.01, "bwd_s": 0.02, "act_bytes": 0, "grad_bytes": 0, "buckets": 1,
     "opt_s": 0}}}]}}
EOF
"$ccsim" workload explain "$tmp/pp.json" --csv > "$tmp/pp.csv" || fail "explain pp.json"
check iter_s "$tmp/pp.csv" 0.33 1e-9
check compute_s "$tmp/pp.csv" 0.24 1e-9
check bubble_s "$tmp/pp.csv" 0.09 1e-9
check exposed_s "$tmp/pp.csv" 0 1e-9

# DP over two one-GPU hosts, 100 Gb/s NICs (12.5 GB/s), one channel: 4
# buckets of 0.5 GB over a 0.2 s backward after a 0.1 s forward; each
# all-reduce moves 2 (2 - 1) / 2 x 0.5 GB = 0.5 GB per NIC: 0.04 s, shorter
# than its 0.05 s of backward, so only the last is exposed: 0.34 s.  Each
# GPU sends 2 x 1/2 x 2 GB = 2e9 bytes; the DP class alone and its margin
# are the 0.04 s of the last bucket.
cat > "$tmp/dp.json" <<'EOF'
{"topology": {"hosts": [{"name": "a", "gpus": 1, "nics": 1, "nic_gbps": 100},
                        {"name": "b", "gpus": 1, "nics": 1, "nic_gbps": 100}],
              "switches": ["s"],
              "links": [{"a": "a", "b": "s", "gbps": 100}, {"a": "b", "b": "s", "gbps": 100}]},
 "sim": {"channels": 1},
 "trace": {"jobs": [{"id": "d", "gpus": 2, "hosts": ["a", "b"], "start_s": 0, "end_s": 10,
   "model": {"structure": {"dp": 2, "fwd_s": 0.1, "bwd_s": 0.2, "grad_bytes": 2e9,
     "buckets": 4, "overlap_grad_reduce": true, "opt_s": 0}}}]}}
EOF
"$ccsim" workload explain "$tmp/dp.json" --csv > "$tmp/dp.csv" || fail "explain dp.json"
check iter_s "$tmp/dp.csv" 0.34 1e-3
check exposed_s "$tmp/dp.csv" 0.04 1e-3
check dp_bytes "$tmp/dp.csv" 2e9 1
check dp_alone_s "$tmp/dp.csv" 0.04 1e-3
check dp_marginal_s "$tmp/dp.csv" 0.04 1e-3
# 1 GB of it complete only at the backward's end (docs/model.md §4b "Bucket
# readiness"): buckets ready at 0.2 s and three at 0.3 s, 0.04 s each one
# after the other: 0.3 + 3 x 0.04 = 0.42 s; BERT-large's embeddings, from
# the catalog: 31,782,912 fp32 gradients
sed 's/"grad_bytes": 2e9,/"grad_bytes": 2e9, "grad_late_bytes": 1e9,/' "$tmp/dp.json" > "$tmp/late.json"
"$ccsim" workload explain "$tmp/late.json" --csv > "$tmp/late.csv" || fail "explain late.json"
check iter_s "$tmp/late.csv" 0.42 1e-3
check grad_late_bytes "$tmp/late.csv" 1e9 1
"$ccsim" workload explain "$tmp/late.json" | grep -q "1e+09 of 2e+09 B complete only at" ||
    fail "explain late.json: no late gradients line"
"$ccsim" workload explain BERT-large --gpus 16 --csv > "$tmp/bert.csv" || fail "explain BERT-large"
check grad_late_bytes "$tmp/bert.csv" 127131648 1

# A tied embedding's two copies, on stages 0 and 1 of a pipeline over the
# two hosts: p 2, m 2, fwd 0.1 s, bwd 0.2 s end at (m + p - 1)(f + b) =
# 0.9 s, then the 1.25 GB of embedding gradients are all-reduced: each GPU
# sends 2 (2 - 1) / 2 x 1.25 GB = 1.25 GB at 12.5 GB/s, 0.1 s: 1.0 s.
sed 's/"dp": 2, "fwd_s"/"pp": 2, "micro_batches": 2, "embed_grad_bytes": 1.25e9, "fwd_s"/; s/"grad_bytes": 2e9,/"grad_bytes": 0,/' \
    "$tmp/dp.json" > "$tmp/embed.json"
"$ccsim" workload explain "$tmp/embed.json" --csv > "$tmp/embed.csv" || fail "explain embed.json"
check iter_s "$tmp/embed.csv" 1.0 1e-3
check embed_grad_bytes "$tmp/embed.csv" 1.25e9 1
check dp_bytes "$tmp/embed.csv" 1.25e9 1
check dp_alone_s "$tmp/embed.csv" 0.1 1e-3
"$ccsim" workload explain "$tmp/embed.json" | grep -q "1.25e+09 B of tied embedding gradients" ||
    fail "explain embed.json: no embedding line"

# One rule for every job (--structure-set, sim.structure_set), on the same
# job described as DDP (its 0.5 GB buckets: bucket_mb 0.5e9 / 2^20):
# overlap off, the one reduction of 2 GB (2 (2 - 1) / 2 x 2e9 B per NIC at
# 12.5 GB/s = 0.16 s) starts after the backward: 0.1 + 0.2 + 0.16 = 0.46 s;
# one bucket (bucket_mb huge) is ready only at the backward's end: 0.46 s
# too; 2 buckets of 1 GB (0.08 s each): the first is ready at 0.2 s and done
# at 0.28 s, the second from 0.3 s: 0.38 s; grad_bytes 1e9 without overlap:
# 0.3 + 0.08 = 0.38 s.
sed 's/"dp": 2,/"framework": "ddp", "dp": 2,/; s/"buckets": 4, "overlap_grad_reduce": true,/"bucket_mb": 476.837158203125,/' \
    "$tmp/dp.json" > "$tmp/ddp.json"
set_iter() { # WANT ARGS...: explain ddp.json with ARGS, its iteration
    want=$1
    shift
    "$ccsim" workload explain "$tmp/ddp.json" --csv "$@" > "$tmp/set.csv" ||
        fail "explain ddp.json $*"
    check iter_s "$tmp/set.csv" "$want" 1e-3
}
set_iter 0.34
set_iter 0.46 --structure-set overlap_grad_reduce=false
set_iter 0.46 --structure-set bucket_mb=1e9
set_iter 0.38 --structure-set buckets=2
set_iter 0.38 --structure-set grad_bytes=1e9 --structure-set overlap_grad_reduce=false
set_iter 0.34 --structure-set overlap_grad_reduce=false --structure-set overlap_grad_reduce=true
# the replay reads sim.structure_set (and records it in run.json); a
# catalog job takes it too: GPT-13B's bf16 reduction halves its fp32 DP
# bytes, and tp_bytes 0 removes its TP class
sed 's/"sim": {"channels": 1}/"sim": {"channels": 1, "structure_set": {"overlap_grad_reduce": false}}/' \
    "$tmp/ddp.json" > "$tmp/ddp-set.json"
"$ccsim" run --scenario "$tmp/ddp-set.json" --out "$tmp/rset" --quiet > /dev/null ||
    fail "run sim.structure_set"
iso=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "isolated_iter_s") c = i }
               NR == 2 { print $c }' "$tmp/rset/jobs.csv")
near "$iso" 0.46 1e-3 || fail "sim.structure_set: isolated $iso != 0.46"
grep -q '"structure_set"' "$tmp/rset/run.json" || fail "run.json lacks sim.structure_set"
"$ccsim" workload explain GPT-13B --gpus 16 --csv > "$tmp/g0.csv" || fail "explain GPT-13B"
"$ccsim" workload explain GPT-13B --gpus 16 --csv --structure-set grad_dtype=bf16 \
    > "$tmp/g1.csv" || fail "explain GPT-13B grad_dtype=bf16"
near "$(value dp_bytes "$tmp/g1.csv")" "$(awk -v b="$(value dp_bytes "$tmp/g0.csv")" 'BEGIN { printf "%.0f", b / 2 }')" 1 ||
    fail "grad_dtype=bf16: dp bytes $(value dp_bytes "$tmp/g1.csv") not half of $(value dp_bytes "$tmp/g0.csv")"
"$ccsim" workload explain GPT-13B --gpus 16 --csv --structure-set tp_bytes=0 > "$tmp/g2.csv" ||
    fail "explain GPT-13B tp_bytes=0"
grep -q '^tp_bytes' "$tmp/g2.csv" && fail "tp_bytes=0 left a TP class"

# A described GPT-3 Medium (l 24, h 1024, s 2048, V 51200), tp 2, pp 2, dp
# 2, b 1, B 8: m 4, 12 layers per stage, 2 + 2 TP collectives per layer of
# b s h x 2 B = 4,194,304 B, each a ring of 2 moving 2 x 1/2 of it: a GPU
# sends 4 x 12 x 4 x 4,194,304 = 805,306,368 B of TP traffic.  FLOPs per
# iteration 3 x m x dp x (24 x 68,719,476,736 + 214,748,364,800) =
# 3 x 8 x 1,864,015,806,464 = 44,736,379,355,136.
cat > "$tmp/gpt.json" <<'EOF'
{"topology": "clos2:tors=1,aggs=2,hosts_per_tor=1",
 "trace": {"jobs": [{"id": "g", "gpus": 8, "start_s": 0, "end_s": 10,
   "model": {"structure": {"arch": {"layers": 24, "hidden": 1024, "heads": 16, "seq": 2048,
     "vocab": 51200}, "tp": 2, "pp": 2, "global_batch": 8, "micro_batch_size": 1}}}]}}
EOF
"$ccsim" workload explain "$tmp/gpt.json" --csv > "$tmp/gpt.csv" || fail "explain gpt.json"
check tp_bytes "$tmp/gpt.csv" 805306368 1
check flops_iter "$tmp/gpt.csv" 44736379355136 1e4
check micro_batches "$tmp/gpt.csv" 4 0
# Its stage boundary: b s h x 2 B = 4,194,304 B per micro-batch, split over
# the 2 TP ranks (scatter/gather): a GPU sends 4 x 2,097,152 = 8,388,608 B
# one way (pp 2).  Without scatter/gather each TP rank sends all of it:
# 16,777,216 B; with sequence parallelism each holds half anyway.
check pp_bytes "$tmp/gpt.csv" 8388608 0
"$ccsim" workload explain "$tmp/gpt.json" --csv --structure-set pp_scatter_gather=false \
    > "$tmp/gpt-full.csv" || fail "explain gpt.json pp_scatter_gather=false"
check pp_bytes "$tmp/gpt-full.csv" 16777216 0
sed 's/"tp": 2,/"tp": 2, "seq_parallel": true, "pp_scatter_gather": false,/' "$tmp/gpt.json" \
    > "$tmp/gpt-sp.json"
"$ccsim" workload explain "$tmp/gpt-sp.json" --csv > "$tmp/gpt-sp.csv" || fail "explain gpt-sp"
check pp_bytes "$tmp/gpt-sp.csv" 8388608 0

# A catalog model the way a trace job trains (GPT-13B, 16 GPUs: tp 8, dp 2).
"$ccsim" workload explain GPT-13b --gpus 16 --csv > "$tmp/m.csv" || fail "explain GPT-13b"
check tp "$tmp/m.csv" 8 0
check dp "$tmp/m.csv" 2 0
"$ccsim" workload explain GPT-13B --gpus 16 > "$tmp/m.txt" || fail "explain table"
grep -q "communication exposed" "$tmp/m.txt" || fail "explain table lacks the exposed line"

# The replay runs the same structure: its isolated iteration is explain's.
cat > "$tmp/run.json" <<'EOF'
{"topology": "clos2:tors=1,aggs=4,hosts_per_tor=2",
 "trace": {"jobs": [{"id": "GPT-13B", "gpus": 16, "start_s": 0, "end_s": 60,
   "hosts": ["h0", "h1"], "model": "GPT-13B"}]}}
EOF
"$ccsim" run --scenario "$tmp/run.json" --job-model structured --out "$tmp/rs" --quiet \
    > /dev/null || fail "run --job-model structured"
iso=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "isolated_iter_s") c = i }
               NR == 2 { print $c }' "$tmp/rs/jobs.csv")
near "$iso" "$(value iter_s "$tmp/m.csv")" 1e-9 || fail "replay's isolated $iso != explain's"
# structured is the default, byte for byte; the option and the scenario key
# sim.job_model "flat" give the same flat run
"$ccsim" run --scenario "$tmp/run.json" --out "$tmp/r0" --quiet > /dev/null || fail "run default"
"$ccsim" run --scenario "$tmp/run.json" --job-model flat --out "$tmp/r1" --quiet > /dev/null ||
    fail "run --job-model flat"
mkdir "$tmp/keyed" # the same scenario name: summary.csv names the run after it
sed 's/^{/{"sim": {"job_model": "flat"},/' "$tmp/run.json" > "$tmp/keyed/run.json"
"$ccsim" run --scenario "$tmp/keyed/run.json" --out "$tmp/r2" --quiet > /dev/null ||
    fail "run sim.job_model flat"
for f in jobs.csv timeseries.csv links.csv; do
    cmp -s "$tmp/rs/$f" "$tmp/r0/$f" || fail "the default is not --job-model structured: $f"
    cmp -s "$tmp/r1/$f" "$tmp/r2/$f" || fail "--job-model flat != sim.job_model flat: $f"
done
# summary.csv: all but the run's wall time and memory (its last columns
# but one are wall_s, events, peak_rss_bytes; a quoted topology may hold
# commas, so count from the end)
nowall() { awk -F, '{ $(NF - 2) = ""; $NF = ""; print }' "$1"; }
[ "$(nowall "$tmp/rs/summary.csv")" = "$(nowall "$tmp/r0/summary.csv")" ] ||
    fail "the default is not --job-model structured: summary.csv"
# (the trace column names the scenario file)
sed "s#$tmp/keyed/run.json#$tmp/run.json#" "$tmp/r2/summary.csv" > "$tmp/r2/summary-renamed.csv"
[ "$(nowall "$tmp/r1/summary.csv")" = "$(nowall "$tmp/r2/summary-renamed.csv")" ] ||
    fail "--job-model flat != sim.job_model flat: summary.csv"
# the flat model, by hand (tests/test_replay.c megatron_no_overlap has the
# arithmetic): GPT-13B on 16 GPUs with TP 8 on 2 hosts of 2 ToRs, no
# latency: S = 8 x 3.25e9 = 26e9 B per host; NVLink reduce-scatter +
# all-gather 2 x 7/8 x 26e9 / 300e9 = 0.1516667 s, one ring per rail
# 2 (2 - 1) / 2 x 26e9 / 4 / 25e9 = 0.26 s, after C = 4.564114 s, then
# T_opt 0.016957 s: 4.9927377 s
cat > "$tmp/hand.json" <<'EOF'
{"topology": "clos2:tors=2,aggs=1,hosts_per_tor=1,latency_us=0,host_latency_us=0",
 "trace": {"jobs": [{"id": "g", "gpus": 16, "hosts": ["h0", "h1"], "start_s": 0, "end_s": 30,
   "model": "GPT-13B"}]}, "sim": {"alpha_us": 0}}
EOF
"$ccsim" run --scenario "$tmp/hand.json" --job-model flat --out "$tmp/hand" --quiet > /dev/null ||
    fail "run hand.json --job-model flat"
iso=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "isolated_iter_s") c = i }
               NR == 2 { print $c }' "$tmp/hand/jobs.csv")
near "$iso" 4.9927377 1e-6 || fail "flat GPT-13B isolated $iso != 4.9927377"

# trace stats --exposure: the share waiting on communication is 1 - the
# allocated utilization of a run under the ideal scheduler (every job
# alone), for each job model, on the demo's window of the bundled sample
# (no job of it has a pipeline, so no bubble)
"$ccsim" trace stats default --topo lingjun-sample:oversub=4 --exposure \
    --start 64260 --end 65460 --csv - > "$tmp/exp.csv" || fail "trace stats --exposure"
for jm in flat structured; do
    "$ccsim" run --topo lingjun-sample:oversub=4 --start 64260 --end 65460 --sched ideal \
        --job-model $jm --out "$tmp/ideal-$jm" --quiet > /dev/null || fail "run --sched ideal $jm"
    util=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "gpu_util_allocated_frac") c = i }
                    NR == 2 { print $c }' "$tmp/ideal-$jm/summary.csv")
    comm=$(awk -F, -v k="${jm}_comm_alloc_frac" '$1 == "exposure" && $2 == k { print $3 }' "$tmp/exp.csv")
    bubble=$(awk -F, -v k="${jm}_bubble_alloc_frac" '$1 == "exposure" && $2 == k { print $3 }' "$tmp/exp.csv")
    near "$comm" "$(awk -v u="$util" -v b="$bubble" 'BEGIN { print 1 - u - b }')" 1e-6 ||
        fail "trace stats $jm exposure $comm != 1 - $util - $bubble"
done

# Bad input: exit 1 (bad data) or 2 (usage), a message naming what is wrong.
expect() { # STATUS PATTERN CMD...
    want=$1 pat=$2
    shift 2
    "$@" > "$tmp/out" 2> "$tmp/err"
    got=$?
    [ "$got" -eq "$want" ] || fail "$*: exit $got, expected $want"
    grep -q "$pat" "$tmp/err" || fail "$*: stderr lacks \"$pat\": $(cat "$tmp/err")"
    [ -s "$tmp/out" ] && fail "$*: wrote to stdout"
}
expect 1 "neither a trace model" "$ccsim" workload explain no-such-model
expect 2 "usage" "$ccsim" workload explain
expect 2 "usage" "$ccsim" workload bogus GPT-13B
expect 2 "gpu" "$ccsim" workload explain GPT-13B --gpu v100
sed 's/"layers": 24/"layers": 3/' "$tmp/gpt.json" > "$tmp/bad.json"
expect 1 "job g: structure: the model's 3 layers are not a multiple of pp 2" \
    "$ccsim" workload explain "$tmp/bad.json"
expect 1 "job g: structure: the model's 3 layers" "$ccsim" run --scenario "$tmp/bad.json" \
    --out "$tmp/bad" --quiet
[ -e "$tmp/bad" ] && fail "a bad structure left an output folder"
for kv in foo=1 tp=2 overlap_grad_reduce=maybe grad_dtype=fp8 grad_dtype=3 buckets=0 tp_bytes=-1 =3 tp_bytes; do
    expect 2 "^ccsim: --structure-set: " "$ccsim" run --scenario "$tmp/ddp.json" \
        --structure-set "$kv" --out "$tmp/bad" --quiet
    expect 2 "^ccsim: --structure-set: " "$ccsim" workload explain "$tmp/ddp.json" \
        --structure-set "$kv"
done
expect 2 'grad_dtype: expected "fp32", "bf16" or "fp16"' "$ccsim" workload explain "$tmp/ddp.json" \
    --structure-set grad_dtype=3
[ -e "$tmp/bad" ] && fail "a bad --structure-set left an output folder"
sed 's/"overlap_grad_reduce": false/"tp": 2/' "$tmp/ddp-set.json" > "$tmp/bad-set.json"
expect 1 "bad-set.json: sim.structure_set: unknown key \"tp\"" "$ccsim" run \
    --scenario "$tmp/bad-set.json" --out "$tmp/bad" --quiet
sed 's/"overlap_grad_reduce": false/"tp_bytes": [1, 2]/' "$tmp/ddp-set.json" > "$tmp/bad-set.json"
expect 1 "sim.structure_set: tp_bytes: expected one value for every job" "$ccsim" run \
    --scenario "$tmp/bad-set.json" --out "$tmp/bad" --quiet
[ -e "$tmp/bad" ] && fail "a bad sim.structure_set left an output folder"

[ "$fails" -eq 0 ] && echo "workload cli: ok"
[ "$fails" -eq 0 ]
