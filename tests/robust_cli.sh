#!/usr/bin/env bash
# robust_cli.sh - bad input through the ccsim binary: every refusal names
# where the value came from, exits 2 (option) or 1 (data), escapes control
# bytes and leaves nothing behind (meson suite "integration").
# Not here: the parsers' own unit cases (tests/test_*.c).
# Usage: tests/robust_cli.sh CCSIM SOURCE_DIR
set -u
ccsim=$(realpath "$1")
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0
pass=0
ok()  { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# refuse NAME STATUS MESSAGE_RE ARGS...: exit status STATUS, MESSAGE_RE on
# stderr, stdout empty, and the folder "left" (every test's --out, -o or
# gen-trace folder) does not exist afterwards.
refuse() {
    local name=$1 want=$2 msg_re=$3
    shift 3
    rm -rf left
    "$ccsim" "$@" >stdout 2>stderr
    local st=$?
    if [ "$st" != "$want" ]; then bad "$name: exit status $st, expected $want"; cat stderr; return; fi
    if ! grep -Eq -- "$msg_re" stderr; then bad "$name: message: $(cat stderr)"; return; fi
    if grep -q $'\x1b' stderr; then bad "$name: raw ESC byte on stderr"; return; fi
    if [ -s stdout ]; then bad "$name: wrote to stdout"; return; fi
    if [ -e left ]; then bad "$name: left its output folder behind"; return; fi
    ok
}

echo '{"sim": {"priority_levels": 100}}' > levels.json
echo '{"sim": {"end_s": 1e300}}' > end.json
printf '{"sim": {"mode": "\\u001b[2J"}}' > esc.json
cat > far.json <<'J'
{"topology": "fat-tree:k=4", "trace": {"jobs": [
  {"id": "j1", "gpus": 1, "start_s": 0, "end_s": 1e308, "model": {"compute_s": 1}}]}}
J
: > empty-sweep.json
printf '{\n"base": {},\n  oops }' > syntax-sweep.json
echo '{"base": {}, "grid": {"--out": ["/tmp/elsewhere"]}}' > out-sweep.json
echo '{"base": {}, "grid": {"--scenario": ["x.json"]}}' > scenario-sweep.json

# the priority_levels messages of the issue: file and key, not "--levels"
refuse levels_file 1 '^ccsim: levels.json: sim.priority_levels: 100 is outside \[1, 64\]' \
    run --scenario levels.json -q -o left
refuse levels_opt 2 '^ccsim: --levels: 100 is outside \[1, 64\]' run --levels 100 -q -o left
refuse end_opt 2 '^ccsim: --end: 1e\+18 is outside' run --end 1e18 -q -o left
refuse end_file 1 'end.json: sim.end_s: 1e\+300 is outside' run --scenario end.json -q -o left
refuse interval 2 '^ccsim: --interval: 1e-09 is outside \[0.001' run --interval 1e-9 -q -o left
# 7200 s / 0.001 s = 7.2 million rows > 1 million: refused before the folder
refuse rows 1 'refusing to start: time-series intervals \(window 7200 s / interval 0.001 s\): 7200000 is outside \[0, 1000000\]' \
    run --interval 0.001 -q -o left
refuse time_scale 2 '^ccsim: --time-scale: 1000000000 is outside' run --time-scale 1e9 -q -o left
refuse far_job 1 'far.json: jobs\[0\].end_s: 1e\+308 is outside' run --scenario far.json -q -o left
refuse hex_seed 2 '^ccsim: --seed: expected a decimal number, got "0x10"' run --seed 0x10 -q -o left
refuse escaped 1 'expected "window" or "work", got "\\x1b\[2J"' run --scenario esc.json -q -o left
refuse dup_sched 2 "^ccsim: --scheds: scheduler 'ecmp' named twice" \
    compare --scheds ecmp,ecmp -q -o left
refuse empty_sched 2 '^ccsim: --scheds: an empty scheduler name' compare --scheds ecmp,,crux -q -o left
refuse topo_commas 1 "empty parameter \(item 2 of 'k=4,,,'\)" run --topo 'fat-tree:k=4,,,' -q -o left
refuse topo_hex 1 "nic_gbps must be a non-negative decimal number, got '0x10'" \
    run --topo 'fat-tree:k=4,nic_gbps=0x10' -q -o left
refuse sweep_empty 1 '^ccsim: empty-sweep.json: the file is empty' sweep empty-sweep.json --out left
refuse sweep_syntax 1 '^ccsim: syntax-sweep.json:3: not valid JSON near "' \
    sweep syntax-sweep.json --out left
refuse sweep_out 1 "grid key '--out': not an option a sweep may vary" sweep out-sweep.json --out left
refuse sweep_scenario 1 "grid key '--scenario': not an option a sweep may vary" sweep scenario-sweep.json --out left
# every option `ccsim run --help` lists: a grid key for an output path or
# for the run's own scenario is refused (an allow-list, sweep_option_keys),
# the others are passed on; an option the list does not know is refused
outputs=" --out --progress-file --timeline --force --scenario --help --version --quiet --jobs --shard-only "
opts=$("$ccsim" run --help-all | grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+' | sort -u)
[ -n "$opts" ] || bad "no options parsed from ccsim run --help-all"
for opt in $opts --made-up-output; do
    printf '{"base": {}, "grid": {"%s": ["x"]}}' "$opt" > optkey.json
    if "$ccsim" sweep optkey.json --dry-run >/dev/null 2>optkey.err; then accepted=1; else accepted=0; fi
    case "$outputs" in
        *" $opt "*) if [ $accepted = 1 ]; then bad "sweep accepts the output grid key $opt"; else ok; fi ;;
        *) if [ "$opt" = --made-up-output ] && [ $accepted = 1 ]; then bad "sweep accepts an unknown option"
           elif [ "$opt" != --made-up-output ] && [ $accepted = 0 ]; then bad "sweep refuses $opt: $(cat optkey.err)"
           else ok; fi ;;
    esac
done
refuse sweep_jobs 2 '^ccsim: --jobs: 5000 is outside 0 or \[1, 1024\]' sweep -j 5000 out-sweep.json --out left
refuse gen_days 2 '^ccsim: gen-trace: --days: 0 is outside \(0, 366\]' gen-trace --days 0 --out left
refuse gen_scale_neg 2 'gen-trace: --scale: -1 is outside \(0, 100\]' gen-trace --scale -1 --out left
refuse gen_scale_big 2 'gen-trace: --scale: 1000000000 is outside' gen-trace --scale 1e9 --out left
refuse gen_hex 2 'gen-trace: --days: expected a decimal number, got "0x10"' gen-trace --days 0x10 --out left

# --- numbers: every one has a lower bound keeping the run's events countable,
# absurd but finite values refused, sizes that multiply work refused up front
# (docs/usage.md "Limits"; tests/test_limits_probes.c walks every row) -----
tiny() { # tiny NAME COMPUTE BYTES: a scenario with one job of that model
    printf '{"topology": "clos2:tors=2,aggs=1,hosts_per_tor=2,gpus=1,nics=1,pcie=1", "trace": {"jobs": [{"id": "j1", "gpus": 2, "hosts": ["h0", "h2"], "start_s": 0, "end_s": 100, "model": {"compute_s": %s, "comm_bytes": %s}}]}}' "$2" "$3" > "$1.json"
}
tiny tiny-both 1e-300 1e-300
tiny tiny-compute 1e-12 0
tiny tiny-bytes 1 1e-300
refuse tiny_both 1 'tiny-both.json: jobs\[0\]: model.compute_s: 1e-300 is outside \[0.0001, 1000000\] s' \
    run --scenario tiny-both.json -q -o left
refuse tiny_compute 1 'model.compute_s: 1e-12 is outside' run --scenario tiny-compute.json -q -o left
refuse tiny_bytes 1 'model.comm_bytes: 1e-300 is outside 0 or \[1, 1e\+15\] bytes' \
    run --scenario tiny-bytes.json -q -o left
# a compute time allowed by the model's limit but cut by jitter below it:
# refused before the run, naming the file, the job and the jitter
tiny jitter 0.0001 0
refuse jitter_compute 1 '^ccsim: jitter.json: job j1: compute time of model j1 on a100 after jitter: 7.1[0-9e-]* is outside' \
    run --scenario jitter.json --jitter 1 --seed 4 -q -o left
# a job's iterations in its window: span / compute past a billion
printf '{"topology": "fat-tree:k=4", "trace": {"jobs": [{"id": "j1", "gpus": 1, "start_s": 0, "end_s": 2e6, "model": {"compute_s": 0.001}}]}, "sim": {"interval_s": 1000}}' > iters.json
refuse iterations 1 'refusing to start: iters.json: job j1: iterations in the window \(2e\+06 s / compute 0.001 s\): 2000000000 is outside \[0, 1000000000\]' \
    run --scenario iters.json -q -o left
refuse start_after_end 2 '^ccsim: --start, --end: the window.s end 10 s is not after its start 90 s' \
    run --start 90 --end 10 -q -o left
refuse tilt 2 '^ccsim: gen-trace: --gpu-run-tilt: 1e\+300 is outside \[-10, 10\]' \
    gen-trace --gpu-run-tilt 1e300 --out left
printf '{"topology": "fat-tree:k=4", "trace": {"synthetic": {"days": 0}}}' > synth.json
refuse syn_days 1 'synth.json: trace.synthetic.days: 0 is outside \(0, 366\] days' \
    run --scenario synth.json -q -o left
refuse og_jobs 2 '^ccsim: optimal-gap: --threads: 100000 is outside 0 or \[1, 1024\]' \
    optimal-gap -j 100000 --output left
refuse compare_jobs 2 '^ccsim: --jobs: 5000 is outside 0 or \[1, 1024\]' compare -j 5000 -q -o left
python3 - <<'PY'
import json
ops = [{"type": "relu", "flops": 8, "bytes_read": 4, "bytes_written": 4, "preds": [i - 1] if i else []}
       for i in range(100001)]
json.dump({"batch": 2, "ops": ops}, open("big-graph.json", "w"))
json.dump({"batch": 2, "ops": [{"type": "relu", "flops": 1e308, "bytes_read": 4, "bytes_written": 4,
                                "preds": []}]}, open("flops-graph.json", "w"))
PY
refuse graph_ops 1 'big-graph.json: ops: operators: 100001 is outside \[1, 100000\]' predict big-graph.json
refuse graph_flops 1 'flops-graph.json: ops\[0\].flops: 1e\+308 is outside \[0, 1e\+18\]' \
    predict flops-graph.json

# --- JSON read strictly (base/json.h): one value, no duplicate key, no
# unknown key, no NUL, in every JSON input ---------------------------------
job='{"id": "j1", "gpus": 8, "start_s": 0, "end_s": 5, "model": {"compute_s": 1}}'
printf '{"sim": {"seed": 1}} {"x": 1}' > trailing.json
printf '{"sim": {"seed": 1}, "sim": {"seed": 2}}' > dupsim.json
printf '{"topology": "fat-tree:k=4", "trace": {"jobs": [{"id": "j1", "gpus": 8, "start_s": 0, "end_s": 5, "cpus": 4}]}}' > jobkey.json
printf '{"topology": "fat-tree:k=4", "trace": {"synthetic": {"seed": 1, "dayz": 2}}}' > synkey.json
printf '{"topology": "fat-tree:k=4", "trace": {"jobs": [%s]}, "scheduler": {"name": "ecmp", "speed": 3}}' "$job" > schedkey.json
printf '{"topology": "fat-tree:k=4", "trace": {"jobs": [{"id": "j1", "gpus": 8, "start_s": 0, "end_s": 5, "model": {"compute_s": 1, "flops": 3}}]}}' > modelkey.json
printf '{"jobs": [%s]}\n{"jobs": []}' "$job" > trailing-trace.json
printf '{"base": {}, "grid": {"sim.seed": [1]}} {"x": 1}' > trailing-sweep.json
printf '{"base": {}, "grid": {"--out\\u0000x": ["/tmp/elsewhere"]}}' > nul-sweep.json
printf '{"hosts": [{"name": "h0"}], "switches": ["s0"], "links": [{"a": "h0", "b": "s0"}], "links": []}' > duptopo.json
refuse json_trailing 1 '^ccsim: trailing.json:1: data after the JSON value' run --scenario trailing.json -q -o left
refuse json_duplicate 1 '^ccsim: dupsim.json: key "sim" appears twice' run --scenario dupsim.json -q -o left
refuse json_job_key 1 'jobkey.json: jobs\[0\].cpus: unknown key \(expected id, gpus' run --scenario jobkey.json -q -o left
refuse json_synthetic_key 1 'synkey.json: trace.synthetic.dayz: unknown key' run --scenario synkey.json -q -o left
refuse json_sched_key 1 'schedkey.json: scheduler.speed: unknown key \(expected name\)' run --scenario schedkey.json -q -o left
refuse json_model_key 1 'modelkey.json: jobs\[0\]: model.flops: unknown key' run --scenario modelkey.json -q -o left
refuse json_trace_trailing 1 '^ccsim: trailing-trace.json:2: data after the JSON value' \
    run --trace trailing-trace.json --topo fat-tree:k=4 -q -o left
refuse json_sweep_trailing 1 '^ccsim: trailing-sweep.json:1: data after the JSON value' \
    sweep trailing-sweep.json --out left
refuse json_sweep_nul 1 '^ccsim: nul-sweep.json:1: a NUL character' sweep nul-sweep.json --out left
refuse json_topo_dup 1 'duptopo.json: key "links" appears twice' run --topo file:duptopo.json -q -o left
# the MDOT graph library (--graph-library): read by the same strict reader
printf '{"trace": {"jobs": [{"id": "j1", "gpus": 8, "start_s": 0, "end_s": 100, "model": "GPT-1.3B"}]}, "topology": "fat-tree:k=4", "sim": {"compute": "mdot", "mdot_weights": "cpu1", "end_s": 100}}' > mdot-run.json
printf '{"graphs": {"GPT-1.3B": {"file": "g.json", "batch": 1}}} {"x": 1}' > lib-trailing.json
printf '{"graphs": {}, "graphs": {"GPT-1.3B": {"file": "g.json", "batch": 1}}}' > lib-dup.json
printf '{"graphz": {}, "graphs": {"GPT-1.3B": {"file": "g.json", "batch": 1}}}' > lib-unknown.json
printf '{"graphs": {"GPT-1.3B": {"file": "g.json", "bach": 1}}}' > lib-entry.json
refuse json_lib_trailing 1 'lib-trailing.json:1: data after the JSON value' \
    run --scenario mdot-run.json --graph-library lib-trailing.json -q -o left
refuse json_lib_dup 1 'lib-dup.json: key "graphs" appears twice' \
    run --scenario mdot-run.json --graph-library lib-dup.json -q -o left
refuse json_lib_unknown 1 'lib-unknown.json: graphz: unknown key \(expected about or graphs\)' \
    run --scenario mdot-run.json --graph-library lib-unknown.json -q -o left
# an MDOT option that changes nothing is said (a warning), the run goes on
"$ccsim" run --mdot-weights cpu1 --end 60 -q -o mdot-unused >stdout 2>stderr
if [ $? = 0 ] && grep -q '^ccsim: warning: --mdot-weights (sim.mdot_weights) changed nothing' stderr; then ok
else bad "mdot_weights_unused: $(cat stderr)"; fi
"$ccsim" run --graph-library lib-entry.json --end 60 -q -o lib-unused >stdout 2>stderr
if [ $? = 0 ] && grep -q '^ccsim: warning: --graph-library (sim.graph_library) changed nothing' stderr; then ok
else bad "graph_library_unused: $(cat stderr)"; fi
refuse json_lib_entry 1 'lib-entry.json: graphs.GPT-1.3B.bach: unknown key' \
    run --scenario mdot-run.json --graph-library lib-entry.json -q -o left

# --- outputs: an empty folder name is a usage error before anything runs;
# gen-trace refuses a non-empty folder (as run and compare); a progress file
# in a missing folder is refused; control bytes in ids are escaped in CSV ---
for cmd in run compare; do
    refuse "${cmd}_empty_out" 2 '^ccsim: --out: an empty folder name' $cmd -q -o ""
done
refuse sweep_empty_out 2 '^ccsim: --out: an empty folder name' sweep out-sweep.json --out ""
refuse gen_empty_out 2 '^ccsim: gen-trace: --out: an empty folder name' gen-trace --out ""
refuse export_empty_out 2 '^ccsim: export-packet: --out: an empty folder name' \
    export-packet "$src/examples/scenario-4hosts.json" -o ""
mkdir -p full && echo keep > full/mine.txt
"$ccsim" gen-trace --days 0.1 --out full >stdout 2>stderr
if [ $? = 1 ] && grep -q '^ccsim: full: folder is not empty' stderr && [ "$(ls -A full)" = mine.txt ]; then ok
else bad "gen-trace into a non-empty folder: $(cat stderr), holds $(ls -A full)"; fi
refuse progress_missing 2 '^ccsim: --progress-file: nowhere/deeper: no such folder' \
    run --progress-file nowhere/deeper/p.txt -q -o left
printf '{"topology": "fat-tree:k=4", "trace": {"jobs": [{"id": "a\\u001b[31mb\\u0007c\\\\d", "gpus": 8, "start_s": 0, "end_s": 5, "model": {"compute_s": 1}}]}}' > ctl.json
rm -rf ctl
"$ccsim" run --scenario ctl.json -q -o ctl >/dev/null 2>&1
if grep -q 'a\\x1b\[31mb\\x07c\\x5cd' ctl/jobs.csv && ! grep -q $'\x1b\|\x07' ctl/*.csv ctl/run.json; then ok
else bad "control bytes in a job id: $(grep -a '^a' ctl/jobs.csv | cat -v)"; fi

# --- trace files: trailing garbage after gzip, a NUL byte ------------------
mkdir tr
cp "$src"/traces/data/*.csv.gz tr/
printf 'garbage' >> tr/job.csv.gz
refuse gz_trailing 1 'job.csv.gz: 7 bytes of trailing data after the gzip stream' \
    run --trace tr -q -o left
cp "$src/traces/data/job.csv.gz" tr/job.csv.gz
{ gzip -dc tr/job.csv.gz | head -2; printf 'x\0y\n'; gzip -dc tr/job.csv.gz | tail -n +3; } > tr/job.csv
rm tr/job.csv.gz
refuse nul_byte 1 'job.csv:3: a NUL byte' run --trace tr -q -o left

# --- odd input: each class an error or a counted warning ----------------------
# a job.csv row repeating an earlier job_name: error (which copy is the job?);
# --lenient (trace load) skips and counts it
cp "$src"/traces/data/*.csv.gz tr/ && rm -f tr/job.csv && gzip -d tr/job.csv.gz
sed -n 2p tr/job.csv >> tr/job.csv
line=$(wc -l < tr/job.csv)
refuse dup_job_name 1 "tr/job.csv:$line: job_name \"[^\"]*\" repeats line 2" run --trace tr -q -o left
if "$ccsim" trace load tr --lenient | grep -q '^skipped_duplicate    1$'; then ok
else bad "trace load --lenient does not count the duplicate row"; fi
cat > twice.json <<'J'
{"topology": "fat-tree:k=4", "trace": {"jobs": [
  {"id": "j1", "gpus": 8, "hosts": ["h0", "h0"], "start_s": 0, "end_s": 5, "model": {"compute_s": 1}}]}}
J
refuse host_twice 1 'twice.json: jobs\[0\].hosts: "h0" listed twice' run --scenario twice.json -q -o left
cat > fixed.json <<'J'
{"topology": "fat-tree:k=4", "trace": {"jobs": [
  {"id": "j1", "gpus": 8, "start_s": 0, "end_s": 5, "model": {"compute_s": 1}}]},
 "scheduler": {"name": "fixed", "jobs": {"j9": {"priority": 0}}}}
J
refuse fixed_unknown_job 1 'fixed.json: scheduler.jobs.j9: the trace has no job "j9"' \
    run --scenario fixed.json -q -o left
# hosts the topology lacks: run, placed by the policy, one warning line with
# the count and the first example, and counted in run.json
cat > unknown.json <<'J'
{"topology": "fat-tree:k=4", "trace": {"jobs": [
  {"id": "j1", "gpus": 8, "hosts": ["nohost"], "start_s": 0, "end_s": 5, "model": {"compute_s": 1}},
  {"id": "j2", "gpus": 8, "hosts": ["h1", "gone"], "start_s": 0, "end_s": 5, "model": {"compute_s": 1}}]}}
J
rm -rf unk
"$ccsim" run --scenario unknown.json -q -o unk >/dev/null 2>unk.err
if [ "$(grep -c warning unk.err)" != 1 ]; then bad "unknown hosts: $(cat unk.err)"
elif ! grep -q 'warning: 2 jobs name a host the topology lacks .*(first: job j1: host nohost)' unk.err; then
    bad "unknown hosts message: $(cat unk.err)"
elif ! grep -q '"jobs_naming_unknown_hosts":.2,' unk/run.json; then bad "unknown hosts not in run.json"
else ok; fi

# --- topology files: NaN refused like inf, a duplicate node id, a self
# link, an edge to an undeclared node (named), in GraphML and JSON -------------
graphml() { # graphml FILE NODES EDGES: keys kind, gbps, nics; the given nodes and edges
    { echo '<?xml version="1.0" encoding="UTF-8"?>'
      echo '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
      echo '<key id="kind" for="node" attr.name="kind" attr.type="string"/>'
      echo '<key id="gbps" for="edge" attr.name="gbps" attr.type="double"/>'
      echo '<key id="nics" for="node" attr.name="nics" attr.type="double"/>'
      echo '<graph id="G" edgedefault="undirected">'
      echo "$2"; echo "$3"; echo '</graph></graphml>'; } > "$1"
}
nodes='<node id="h0"><data key="kind">host</data><data key="nics">1</data></node>
<node id="h1"><data key="kind">host</data><data key="nics">1</data></node>
<node id="s0"><data key="kind">tor</data></node>'
edges='<edge source="h0" target="s0"/>
<edge source="h1" target="s0"/>'
graphml nan.graphml "$nodes" '<edge source="h0" target="s0"><data key="gbps">NaN</data></edge>
<edge source="h1" target="s0"/>'
graphml inf.graphml "$nodes" '<edge source="h0" target="s0"><data key="gbps">inf</data></edge>
<edge source="h1" target="s0"/>'
graphml dupnode.graphml "$nodes
<node id=\"s0\"><data key=\"kind\">agg</data></node>" "$edges"
graphml selfloop.graphml "$nodes" "$edges
<edge source=\"s0\" target=\"s0\"><data key=\"gbps\">100</data></edge>"
graphml unknown-end.graphml "$nodes" "$edges
<edge source=\"s0\" target=\"s9\"><data key=\"gbps\">100</data></edge>"
graphml good.graphml "$nodes" "$edges"
if "$ccsim" topo file:good.graphml >/dev/null 2>good.err; then ok; else bad "a good GraphML file: $(cat good.err)"; fi
refuse graphml_nan 1 'nan.graphml:[0-9]+: edge data .gbps.: "NaN" is not a decimal number' \
    run --topo file:nan.graphml -q -o left
refuse graphml_inf 1 'inf.graphml:[0-9]+: edge data .gbps.: "inf" is not a decimal number' \
    run --topo file:inf.graphml -q -o left
refuse graphml_dup 1 "dupnode.graphml:[0-9]+: node id 's0' appears twice \\(first on line [0-9]+\\)" \
    run --topo file:dupnode.graphml -q -o left
refuse graphml_self 1 "selfloop.graphml:[0-9]+: an edge from 's0' to itself" \
    run --topo file:selfloop.graphml -q -o left
refuse graphml_unknown 1 "unknown-end.graphml:[0-9]+: edge to 's9', a node the file does not declare" \
    run --topo file:unknown-end.graphml -q -o left
printf '{"hosts": [{"name": "h0", "nics": 1}], "switches": ["s0"], "links": [{"a": "h0", "b": "s0"}, {"a": "s0", "b": "s0", "gbps": 10}]}' > selflink.json
refuse json_self_link 1 "selflink.json: links\\[1\\]: a link from 's0' to itself" run --topo file:selflink.json -q -o left

# --- messages: each names its source and says what is wrong -------------------
refuse timeline_jobs_none 2 '^ccsim: --timeline-jobs: the trace has no job "nope"' \
    run --scenario "$src/examples/crux-example1.json" --timeline t.json --timeline-jobs j1,nope -q -o left
printf '{"topology": "fat-tree:k=4", "trace": {"jobs": [%s]}, "scheduler": "crux-turbo"}' "$job" > unsched.json
refuse unknown_sched_file 1 "^ccsim: unsched.json: scheduler: unknown scheduler 'crux-turbo'" \
    run --scenario unsched.json -q -o left
printf '{"topology": "fat-tree:k=4", "trace": {"jobs": [{"id": "j1", "gpus": 8, "start_s": 0, "end_s": 5, "model": "GPT-99T"}]}}' > unmodel.json
refuse unknown_model_file 1 '^ccsim: unmodel.json: job j1: model "GPT-99T": neither' run --scenario unmodel.json -q -o left
rm -rf both && mkdir both && cp "$src"/traces/data/*.csv.gz both/ && gzip -dc both/job.csv.gz > both/job.csv
refuse both_job_csv 1 'both/job.csv and both/job.csv.gz both exist' run --trace both -q -o left
rm -rf isdir && mkdir -p isdir/job.csv && cp "$src"/traces/data/worker.csv.gz "$src"/traces/data/topo.csv.gz isdir/
refuse job_csv_dir 1 'isdir/job.csv: a folder, not a file' run --trace isdir -q -o left
rm -rf loop && mkdir loop && ln -s job.csv loop/job.csv && cp "$src"/traces/data/worker.csv.gz "$src"/traces/data/topo.csv.gz loop/
refuse job_csv_loop 1 'loop/job.csv: cannot read: Too many levels of symbolic links' run --trace loop -q -o left
ln -s selfloop-trace selfloop-trace 2>/dev/null
refuse trace_loop 1 'selfloop-trace: cannot read: Too many levels of symbolic links' run --trace selfloop-trace -q -o left
rm -rf hdr && mkdir hdr && for t in job worker topo; do gzip -dc "$src/traces/data/$t.csv.gz" | head -1 > "hdr/$t.csv"; done
refuse header_only 1 'hdr: the trace has no jobs \(a header and no rows\?\)' \
    run --trace hdr --topo fat-tree:k=4 -q -o left
"$ccsim" topo fat-tree:k=4 --export graphml -o nodir/t.graphml >/dev/null 2>topo.err
if grep -q 'nodir/.*t.graphml.*: cannot write: No such file or directory' topo.err; then ok
else bad "topo export into a missing folder: $(cat topo.err)"; fi

# SIGTERM and SIGINT: tests/signal_test.sh

echo "robust_cli: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
