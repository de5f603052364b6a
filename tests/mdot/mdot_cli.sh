#!/bin/sh
# mdot_cli.sh - integration test of `ccsim predict` (suite "integration"):
# a prediction, --batch, and bad graphs with their messages and exit statuses.
# Usage: mdot_cli.sh PATH/TO/ccsim
set -u
ccsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check WHAT CONDITION...
  what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}
op() { # op TYPE PREDS
  printf '{"type":"%s","flops":1000,"bytes_read":400,"bytes_written":400,"preds":%s}' "$1" "$2"
}

printf '{"name":"chain","batch":4,"ops":[%s,%s,%s]}' "$(op conv '[]')" "$(op relu '[0]')" \
  "$(op linear '[1]')" >"$tmp/ok.json"
"$ccsim" predict "$tmp/ok.json" >"$tmp/out" 2>&1; st=$?
check "predict exits 0" [ "$st" -eq 0 ]
check "predict prints seconds" grep -q "^chain: .* s per training iteration (batch 4, 3 operators)" "$tmp/out"
check "predict names the predictor" grep -q "^predictor mdot-1, device cpu1" "$tmp/out"
"$ccsim" predict "$tmp/ok.json" --batch 16 >"$tmp/out16" 2>&1; st=$?
check "--batch 16 exits 0" [ "$st" -eq 0 ]
check "--batch 16 used" grep -q "(batch 16, 3 operators)" "$tmp/out16"

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
bad negative "{\"batch\":-2,\"ops\":[$(op relu '[]')]}" 1 "batch: -2 is outside [1, 1000000]"
printf '{"batch":' >"$tmp/notjson.json"
"$ccsim" predict "$tmp/notjson.json" >/dev/null 2>"$tmp/err"; st=$?
check "notjson exits 1" [ "$st" -eq 1 ]
check "notjson names file and line" grep -qF "ccsim: $tmp/notjson.json:1: not valid JSON" "$tmp/err"

"$ccsim" predict "$tmp/ok.json" --batch -3 >/dev/null 2>"$tmp/err"; st=$?
check "--batch -3 exits 2" [ "$st" -eq 2 ]
check "--batch -3 message" grep -q "^ccsim: predict: --batch: -3 is outside \\[1, 1000000\\]" "$tmp/err"
"$ccsim" predict "$tmp/ok.json" --device tpu9 >/dev/null 2>"$tmp/err"; st=$?
check "unknown device exits 2" [ "$st" -eq 2 ]
check "unknown device lists the known" grep -q "known: cpu1" "$tmp/err"
"$ccsim" predict >/dev/null 2>&1; st=$?
check "no GRAPH exits 2" [ "$st" -eq 2 ]
# A scenario job whose model is {"graph": FILE, "batch": N}: its isolated
# iteration time is the predicted compute (no network: 1 GPU), and run.json
# names the predictor.
t16=$(sed -n 's/^chain: \([0-9.e+-]*\) s per.*/\1/p' "$tmp/out16")
cat >"$tmp/scenario.json" <<JSON
{"topology": {"hosts": [{"name": "h1", "gpus": 8, "nics": 1}], "switches": [], "links": []},
 "trace": {"jobs": [{"id": "g1", "gpus": 1, "hosts": ["h1"], "start_s": 0, "end_s": 60,
                     "model": {"graph": "$tmp/ok.json", "batch": 16}}]},
 "scheduler": "ecmp", "sim": {"mode": "window", "start_s": 0, "end_s": 60, "seed": 1}}
JSON
"$ccsim" run --scenario "$tmp/scenario.json" --out "$tmp/run" >"$tmp/run.log" 2>&1; st=$?
check "graph-model scenario exits 0" [ "$st" -eq 0 ]
check "run.json names the predictor" grep -q '"compute_predictor":[[:space:]]*"mdot-1"' "$tmp/run/run.json"
iso=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="isolated_iter_s") c=i} NR==2{print $c}' "$tmp/run/jobs.csv")
check "isolated iteration = predicted compute ($iso vs $t16)" \
  awk -v a="$iso" -v b="$t16" 'BEGIN{exit !(a > 0 && (a-b)/b < 1e-4 && (b-a)/b < 1e-4)}'
sed 's/"batch": 16/"batch": -1/' "$tmp/scenario.json" >"$tmp/bad-scenario.json"
"$ccsim" run --scenario "$tmp/bad-scenario.json" --out "$tmp/bad" >/dev/null 2>"$tmp/err"; st=$?
check "graph model with batch -1 exits 1" [ "$st" -eq 1 ]
check "graph model batch message" grep -q "model.batch: -1 is outside \\[1, 1000000\\]" "$tmp/err"
check "no output folder after the failure" [ ! -e "$tmp/bad" ]
exit $fail
