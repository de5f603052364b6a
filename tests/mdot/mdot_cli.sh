#!/bin/sh
# mdot_cli.sh - integration test of `ccsim predict` and of MDOT in a replay
# (suite "integration"): a prediction, --batch and its limit, training-range
# warnings, bad graphs with their messages and exit statuses; a scenario's
# graph model found next to the scenario, refused on a GPU without weights,
# run under the recorded --mdot-weights override; --compute mdot for
# catalog models, flat and structured.
# Usage: mdot_cli.sh PATH/TO/ccsim SOURCE_DIR
set -u
ccsim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # absolute: the test changes directory
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check WHAT CONDITION...
  what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}
op() { # op TYPE PREDS
  printf '{"type":"%s","flops":1e9,"bytes_read":4e8,"bytes_written":4e8,"preds":%s}' "$1" "$2"
}

printf '{"name":"chain","batch":4,"ops":[%s,%s,%s]}' "$(op conv '[]')" "$(op relu '[0]')" \
  "$(op linear '[1]')" >"$tmp/ok.json"
"$ccsim" predict "$tmp/ok.json" >"$tmp/out" 2>"$tmp/err"; st=$?
check "predict exits 0" [ "$st" -eq 0 ]
check "predict prints seconds" grep -q "^chain: .* s per training iteration (batch 4, 3 operators)" "$tmp/out"
check "predict prints fixed + per-sample seconds" grep -q "^  = .* s + .* s per sample" "$tmp/out"
check "predict names the predictor" grep -q "^predictor mdot-2, device cpu1" "$tmp/out"
# a collected row's keys are the format's (collect.py's started_utc and load too)
printf '{"name":"chain","batch":4,"started_utc":"2026-11-28T18:50:00Z","load":[1.5,2],"ops":[%s]}' \
  "$(op conv '[]')" >"$tmp/row.json"
"$ccsim" predict "$tmp/row.json" >/dev/null 2>&1; st=$?
check "a row with started_utc and load predicts" [ "$st" -eq 0 ]
"$ccsim" predict "$tmp/ok.json" --batch 16 >"$tmp/out16" 2>&1; st=$?
check "--batch 16 exits 0" [ "$st" -eq 0 ]
check "--batch 16 used" grep -q "(batch 16, 3 operators)" "$tmp/out16"

# The docs' example graph: a training row's model (ResNet-18, 2 images of
# 64 px), inside the training range at batch 8, outside at 4096.
ex="$src/examples/graphs/resnet18-b2-s64.json"
"$ccsim" predict "$ex" --batch 8 >"$tmp/ex8" 2>"$tmp/ex8.err"; st=$?
check "example graph predicts" [ "$st" -eq 0 ]
check "example graph: no warning in range" [ ! -s "$tmp/ex8.err" ]
"$ccsim" predict "$ex" --batch 4096 >"$tmp/ex4096" 2>"$tmp/ex4096.err"; st=$?
check "batch 4096 exits 0" [ "$st" -eq 0 ]
check "batch 4096 warns about the batch" \
  grep -q "warning: resnet18-b2-s64: batch 4096 is outside the training range" "$tmp/ex4096.err"
check "batch 4096 warns about the FLOPs" grep -q "forward FLOPs per iteration .* is outside" "$tmp/ex4096.err"
# twice the batch, at most twice the time (the prediction is affine in the batch)
t8=$(sed -n 's/^resnet18-b2-s64: \([0-9.e+-]*\) s per.*/\1/p' "$tmp/ex8")
t4096=$(sed -n 's/^resnet18-b2-s64: \([0-9.e+-]*\) s per.*/\1/p' "$tmp/ex4096")
check "batch 4096 is 256..512 x batch 8 ($t4096 vs $t8)" \
  awk -v a="$t4096" -v b="$t8" 'BEGIN{exit !(a > 256 * b && a <= 512 * b)}'

bad() { # bad NAME JSON STATUS MESSAGE
  printf '%s' "$2" >"$tmp/$1.json"
  "$ccsim" predict "$tmp/$1.json" >"$tmp/$1.out" 2>"$tmp/$1.err"; st=$?
  check "$1 exits $3" [ "$st" -eq "$3" ]
  check "$1 message" grep -qF "ccsim: $tmp/$1.json: $4" "$tmp/$1.err"
  check "$1 prints nothing on stdout" [ ! -s "$tmp/$1.out" ]
}
bad cycle "{\"batch\":2,\"ops\":[$(op relu '[1]'),$(op relu '[0]')]}" 1 \
  "ops: the predecessors form a cycle"
bad unknown "{\"batch\":2,\"ops\":[$(op warp_drive '[]')]}" 1 \
  "ops[0].type: unknown operator type 'warp_drive'"
bad missing '{"batch":2,"ops":[{"type":"relu","flops":1,"bytes_read":1,"preds":[]}]}' 1 \
  "ops[0].bytes_written: missing"
bad negative "{\"batch\":-2,\"ops\":[$(op relu '[]')]}" 1 "batch: -2 is outside [1, 1000000000]"
printf '{"batch":' >"$tmp/notjson.json"
"$ccsim" predict "$tmp/notjson.json" >/dev/null 2>"$tmp/err"; st=$?
check "notjson exits 1" [ "$st" -eq 1 ]
check "notjson names file and line" grep -qF "ccsim: $tmp/notjson.json:1: not valid JSON" "$tmp/err"
bad cin '{"batch":2,"ops":[{"type":"conv","flops":1,"bytes_read":1,"bytes_written":1,"preds":[],"config":{"cin":"x"}}]}' 1 \
  "ops[0].config.cin: expected a number, got a string"

"$ccsim" predict "$tmp/ok.json" --batch -3 >/dev/null 2>"$tmp/err"; st=$?
check "--batch -3 exits 2" [ "$st" -eq 2 ]
check "--batch -3 message" grep -q "^ccsim: predict: --batch: -3 is outside \[1, 1000000000\]" "$tmp/err"
"$ccsim" predict "$tmp/ok.json" --batch 2000000000 >"$tmp/out" 2>"$tmp/err"; st=$?
check "--batch 2e9 exits 2" [ "$st" -eq 2 ]
check "--batch 2e9 names the limit" grep -q "2000000000 is outside \[1, 1000000000\]" "$tmp/err"
check "--batch 2e9 prints nothing on stdout" [ ! -s "$tmp/out" ]
"$ccsim" predict "$tmp/ok.json" --device tpu9 >/dev/null 2>"$tmp/err"; st=$?
check "unknown device exits 2" [ "$st" -eq 2 ]
check "unknown device lists the known" grep -q "weights exist for: cpu1" "$tmp/err"
"$ccsim" predict >/dev/null 2>&1; st=$?
check "no GRAPH exits 2" [ "$st" -eq 2 ]

# A scenario job whose model is {"graph": FILE, "batch": N}, FILE relative
# to the scenario (run from another directory).  Its isolated iteration
# time is the predicted compute (no network: 1 GPU).
t16=$(sed -n 's/^chain: \([0-9.e+-]*\) s per.*/\1/p' "$tmp/out16")
mkdir -p "$tmp/scn/graphs" "$tmp/elsewhere"
cp "$tmp/ok.json" "$tmp/scn/graphs/chain.json"
cat >"$tmp/scn/scenario.json" <<JSON
{"topology": {"hosts": [{"name": "h1", "gpus": 8, "nics": 1}], "switches": [], "links": []},
 "trace": {"jobs": [{"id": "g1", "gpus": 1, "hosts": ["h1"], "start_s": 0, "end_s": 60,
                     "model": {"graph": "graphs/chain.json", "batch": 16}}]},
 "scheduler": "ecmp", "sim": {"mode": "window", "start_s": 0, "end_s": 60, "seed": 1}}
JSON
cd "$tmp/elsewhere" || exit 1
"$ccsim" run --scenario ../scn/scenario.json --out "$tmp/refused" >/dev/null 2>"$tmp/err"; st=$?
check "graph model on an a100 without weights exits 1" [ "$st" -eq 1 ]
check "refusal names the weights and the override" \
  grep -q "job g1: MDOT has no weights for GPU 'a100' (weights exist for: cpu1).*--mdot-weights" "$tmp/err"
check "no output folder after the refusal" [ ! -e "$tmp/refused" ]
"$ccsim" run --scenario ../scn/scenario.json --mdot-weights cpu1 --out "$tmp/run" \
  >/dev/null 2>"$tmp/run.err"; st=$?
check "--mdot-weights cpu1 run exits 0" [ "$st" -eq 0 ]
check "the override is warned" grep -q "warning: MDOT compute times use the weights of cpu1" "$tmp/run.err"
check "run.json records the override" grep -q '"override":[[:space:]]*true' "$tmp/run/run.json"
check "run.json names the predictor" grep -q '"predictor":[[:space:]]*"mdot-2"' "$tmp/run/run.json"
iso=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="isolated_iter_s") c=i} NR==2{print $c}' "$tmp/run/jobs.csv")
check "isolated iteration = predicted compute ($iso vs $t16)" \
  awk -v a="$iso" -v b="$t16" 'BEGIN{exit !(a > 0 && (a-b)/b < 1e-4 && (b-a)/b < 1e-4)}'
sed 's/"batch": 16/"batch": -1/' ../scn/scenario.json >../scn/bad.json
"$ccsim" run --scenario ../scn/bad.json --mdot-weights cpu1 --out "$tmp/bad" >/dev/null 2>"$tmp/err"; st=$?
check "graph model with batch -1 exits 1" [ "$st" -eq 1 ]
check "graph model batch message" grep -q "model.batch: -1 is outside \[1, 1000000000\]" "$tmp/err"
check "no output folder after the failure" [ ! -e "$tmp/bad" ]
sed 's/"batch": 16/"batch": 16, "device": "cpu1"/' ../scn/scenario.json >../scn/dev.json
"$ccsim" run --scenario ../scn/dev.json --out "$tmp/dev" >/dev/null 2>"$tmp/err"; st=$?
check "a model's device key is refused" grep -q "device: no longer a model key" "$tmp/err"

# --compute mdot: catalog models take MDOT's time for their library graph;
# Non-training keeps the catalog's and run.json lists it.
cat >"$tmp/scn/catalog.json" <<JSON
{"topology": {"hosts": [{"name": "h1", "gpus": 8, "nics": 1}], "switches": [], "links": []},
 "trace": {"jobs": [{"id": "r", "gpus": 1, "hosts": ["h1"], "start_s": 0, "end_s": 600,
                     "model": "ResNet-50"},
                    {"id": "n", "gpus": 1, "hosts": ["h1"], "start_s": 0, "end_s": 600,
                     "model": "Non-training"}]},
 "scheduler": "ecmp", "sim": {"mode": "window", "start_s": 0, "end_s": 600, "seed": 1,
                              "compute": "mdot"}}
JSON
"$ccsim" run --scenario ../scn/catalog.json --out "$tmp/cm" >/dev/null 2>"$tmp/err"; st=$?
check "--compute mdot on an a100 without weights exits 1" [ "$st" -eq 1 ]
check "--compute mdot refusal" grep -q "MDOT has no weights for GPU 'a100'" "$tmp/err"
"$ccsim" run --scenario ../scn/catalog.json --mdot-weights cpu1 --out "$tmp/cm" >/dev/null 2>&1; st=$?
check "--compute mdot with the override exits 0" [ "$st" -eq 0 ]
check "run.json: compute source mdot" grep -q '"source":[[:space:]]*"mdot"' "$tmp/cm/run.json"
check "run.json: Non-training kept" grep -q '"catalog_kept":[[:space:]]*\[[[:space:]]*"Non-training"' "$tmp/cm/run.json"
"$ccsim" run --scenario ../scn/catalog.json --compute catalog --out "$tmp/cc" >/dev/null 2>&1; st=$?
check "--compute catalog needs no weights" [ "$st" -eq 0 ]
r_cat=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="isolated_iter_s") c=i} $1=="r"{print $c}' "$tmp/cc/jobs.csv")
r_mdot=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="isolated_iter_s") c=i} $1=="r"{print $c}' "$tmp/cm/jobs.csv")
check "ResNet-50's time differs between catalog and MDOT ($r_cat vs $r_mdot)" \
  awk -v a="$r_cat" -v b="$r_mdot" 'BEGIN{exit !(a > 0 && b > 0 && a != b)}'
# ResNet-50 has no architecture: under the structured job model it trains
# as DDP on one micro-batch of the library's 256 images,
# so its iteration alone is the graph's time at batch 256, as a flat job's
# (before, the micro-batch fell to 1 sample: 4.3 s instead of 1039 s)
"$ccsim" run --scenario ../scn/catalog.json --mdot-weights cpu1 --job-model structured \
  --out "$tmp/cs" >/dev/null 2>&1
r_st=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="isolated_iter_s") c=i} $1=="r"{print $c}' "$tmp/cs/jobs.csv")
t256=$("$ccsim" predict "$src/traces/graphs/resnet50.json.gz" --batch 256 2>/dev/null | awk 'NR==1{print $2}')
check "structured ResNet-50 under MDOT = T(256) ($r_st vs $t256)" \
  awk -v a="$r_st" -v t="$t256" 'BEGIN{exit !(t > 0 && (a-t)/t < 1e-3 && (t-a)/t < 1e-3)}'
# --compute mdot with structured jobs: LLaMA-33B on one 8-GPU host follows
# the Megatron-LM recipe of 39B parameters shrunk to the host: tp 4, pp 2,
# 12 micro-batches of 4 sequences (`ccsim workload explain LLaMA-33B`,
# docs/models.md); its stages take MDOT's times at micro-batch 4.  By hand:
# a pipelined iteration lasts at least m times its busiest stage, at least
# m times the mean stage, m T(4) / (tp pp); T is affine, so m T(b) = m fixed
# + m b per_sample >= T(m b): the iteration is at least T(48) / 8, T from
# `ccsim predict` of the library graph.  Before the stages took MDOT's times
# the structured job kept its FLOP-derived ones: the times must differ.
cat >"$tmp/scn/structured.json" <<JSON
{"topology": {"hosts": [{"name": "h1", "gpus": 8, "nics": 1}], "switches": [], "links": []},
 "trace": {"jobs": [{"id": "l", "gpus": 8, "hosts": ["h1"], "start_s": 0, "end_s": 600,
                     "model": "LLaMA-33B"}]},
 "scheduler": "ecmp", "sim": {"mode": "window", "start_s": 0, "end_s": 600, "seed": 1,
                              "compute": "mdot", "job_model": "structured"}}
JSON
"$ccsim" run --scenario ../scn/structured.json --mdot-weights cpu1 --out "$tmp/sm" >/dev/null 2>&1; st=$?
check "structured job under --compute mdot exits 0" [ "$st" -eq 0 ]
"$ccsim" run --scenario ../scn/structured.json --compute catalog --out "$tmp/sc" >/dev/null 2>&1; st=$?
check "structured job under --compute catalog exits 0" [ "$st" -eq 0 ]
s_mdot=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="isolated_iter_s") c=i} $1=="l"{print $c}' "$tmp/sm/jobs.csv")
s_cat=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="isolated_iter_s") c=i} $1=="l"{print $c}' "$tmp/sc/jobs.csv")
t48=$("$ccsim" predict "$src/traces/graphs/llama-33b.json.gz" --batch 48 2>/dev/null | awk 'NR==1{print $2}')
check "structured LLaMA-33B: MDOT and catalog times differ ($s_mdot vs $s_cat)" \
  awk -v a="$s_mdot" -v b="$s_cat" 'BEGIN{exit !(a > 0 && b > 0 && a != b)}'
check "structured LLaMA-33B under MDOT >= T(48) / 8 ($s_mdot vs $t48 / 8)" \
  awk -v a="$s_mdot" -v t="$t48" 'BEGIN{exit !(t > 0 && a >= t / 8)}'
exit $fail
