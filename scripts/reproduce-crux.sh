#!/usr/bin/env bash
# reproduce-crux.sh - the Crux paper's trace-driven comparison (SIGCOMM'24
# §6.3, figure 23): every scheduler on the two simulated networks of the
# paper, crux-clos2 and crux-double-sided, replaying the Lingjun trace with
# K = 8 priority levels; then the figures and a table of our gains next to
# the paper's.
#
# Usage: scripts/reproduce-crux.sh [options]
#   --trace DIR       Lingjun trace (job.csv, worker.csv, topo.csv; .gz too).
#                     Default: traces/lingjun/ when it holds the real trace
#                     (scripts/fetch-lingjun.sh traces/lingjun), else a
#                     full-size synthetic one (ccsim gen-trace, seed 1,
#                     16 days, 5,180 jobs) generated into OUT/trace.
#   --start S --end S replay only this window (trace seconds); default: all
#   --gpu a100|h100   GPU type of the model catalog (default a100)
#   --placement P     recorded (default): jobs run on the hosts the trace
#                     recorded, carried over to the Crux networks by
#                     hosts_from=topo.csv (the rest by locality); or
#                     locality, random, packed, spread, fragmented: every
#                     job placed by that policy (docs/model.md §2)
#   --job-model M     structured (default) or flat: how the trace's jobs train
#                     (docs/models.md "Which model a replay uses"; flat
#                     reproduces the numbers from before structured jobs); a
#                     folder holds runs of one job model only (refused
#                     otherwise)
#   --scheds LIST     comma-separated (default: ecmp,sincronia,taccl,cassini,
#                     crux-pa,crux-ps-pa,crux,ideal)
#   --topos LIST      comma-separated networks (default crux-clos2,crux-double-sided)
#   --steady MODE     exact (default: the event path's results) or approx:
#                     every run extrapolates groups of jobs sharing links from
#                     their converged mean rates, with an error bound in each
#                     run.json (docs/engine.md §5d); the 16 days in minutes.
#                     Default --out results/reproduce-crux-approx: a folder
#                     holds runs of one mode only (refused otherwise); not
#                     with --sensitivity
#   -j N              parallel runs (default: number of processors)
#   --out DIR         results (default results/reproduce-crux)
#   --docs FILE       also write the table into FILE (docs/reproducing-crux.md)
#                     between its "generated" markers
#   --sensitivity     instead: the sensitivity sweep (NCCL channels 1/2/4/8 x
#                     uplink oversubscription 1/2/4, and every placement
#                     policy) of examples/sweep-sensitivity.json on the
#                     bundled sample, then its figure and tables
#                     (scripts/plot_sensitivity.py) in OUT/sensitivity/;
#                     with --docs, its tables go between FILE's
#                     crux-sensitivity markers and the figure to
#                     img/crux-sensitivity.png beside FILE. About 12 CPU-minutes
#                     (docs/reproducing-crux.md).
#   --sweep FILE      with --sensitivity: another sweep file of that shape
# Resumable: run the same command again after an interruption.
# CCSIM=path/to/ccsim uses that binary instead of building build/ccsim.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

trace="" start="" end="" gpu=a100 placement=recorded docs="" sensitivity="" steady=exact
job_model=structured
sweep=$root/examples/sweep-sensitivity.json
scheds=ecmp,sincronia,taccl,cassini,crux-pa,crux-ps-pa,crux,ideal
topos=crux-clos2,crux-double-sided
jobs=$(nproc) out=""
usage() { sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --trace) trace=$(realpath -m "$2"); shift 2 ;;
        --start) start=$2; shift 2 ;;
        --end) end=$2; shift 2 ;;
        --gpu) gpu=$2; shift 2 ;;
        --placement) placement=$2; shift 2 ;;
        --scheds) scheds=$2; shift 2 ;;
        --topos) topos=$2; shift 2 ;;
        --steady) steady=$2; shift 2 ;;
        --job-model) job_model=$2; shift 2 ;;
        -j) jobs=$2; shift 2 ;;
        --out) out=$(realpath -m "$2"); shift 2 ;;
        --docs) docs=$(realpath -m "$2"); shift 2 ;;
        --sensitivity) sensitivity=1; shift ;;
        --sweep) sweep=$(realpath -m "$2"); shift 2 ;;
        -h|--help) usage ;;
        *) echo "reproduce-crux.sh: unknown argument $1" >&2; usage ;;
    esac
done

case "$steady" in
    exact) out=${out:-$root/results/reproduce-crux} ;;
    approx) out=${out:-$root/results/reproduce-crux-approx} ;;
    *) echo "reproduce-crux.sh: --steady: expected \"exact\" or \"approx\", got \"$steady\"" >&2; exit 2 ;;
esac
case "$job_model" in
    flat | structured) ;;
    *) echo "reproduce-crux.sh: --job-model: expected \"flat\" or \"structured\", got \"$job_model\"" >&2; exit 2 ;;
esac
if [ -n "$sensitivity" ] && [ "$steady" != exact ]; then
    echo "reproduce-crux.sh: --steady applies to the comparison, not to --sensitivity" >&2; exit 2
fi

ccsim=${CCSIM:+$(realpath "$CCSIM")}
cd "$root"
if [ -z "$ccsim" ]; then
    source scripts/deps.sh
    ccsim_install_packages "${CCSIM_PACKAGES[@]}"
    scripts/build.sh build >/dev/null
    ccsim=build/ccsim
fi

if [ -n "$sensitivity" ]; then
    if ! /usr/bin/python3 -c 'import matplotlib, pandas' 2>/dev/null; then
        source scripts/deps.sh
        ccsim_install_packages python3-matplotlib python3-pandas
    fi
    # the same sweep, its base with the job model; the copy names its files
    # by absolute paths (ccsim sweep reads them relative to the sweep file
    # or to its base scenario file)
    mkdir -p "$out/sensitivity"
    python3 - "$sweep" "$job_model" "$out/sensitivity-sweep.json" <<'EOF'
import json, os, sys
src, job_model, dst = sys.argv[1:]
def absolute(v, d):  # a path relative to d, made absolute where the file exists
    p = os.path.join(d, v)
    return p if isinstance(v, str) and not os.path.isabs(v) and os.path.exists(p) else v
def topo(v, d):  # "NAME:key=FILE,...", or a file
    if not isinstance(v, str) or ":" not in v:
        return absolute(v, d)
    name, params = v.split(":", 1)
    return name + ":" + ",".join(k + "=" + absolute(x, d) if x else k
                                 for k, _, x in (p.partition("=") for p in params.split(",")))
def scenario(s, d):
    t = s.get("trace")
    if isinstance(t, str):
        s["trace"] = absolute(t, d)
    elif isinstance(t, dict):
        s["trace"] = {k: absolute(v, d) for k, v in t.items()}
    if "topology" in s:
        s["topology"] = topo(s["topology"], d)
    return s
d = os.path.dirname(os.path.abspath(src))
sw = json.load(open(src))
base = sw.get("base", {})
if isinstance(base, str):
    path = absolute(base, d)
    base = scenario(json.load(open(path)), os.path.dirname(os.path.abspath(path)))
else:
    base = scenario(base, d)
base.setdefault("sim", {})["job_model"] = job_model
sw["base"] = base
for axes in [sw.get("grid", {})] + list(sw.get("zip", [])):
    for k, vals in axes.items():
        if k == "topology":
            axes[k] = [topo(v, d) for v in vals]
        elif k == "trace":
            axes[k] = [absolute(v, d) for v in vals]
with open(dst, "w") as f:
    json.dump(sw, f, indent=2)
EOF
    sweep=$out/sensitivity-sweep.json
    $ccsim sweep "$sweep" --out "$out/sensitivity" -j "$jobs"
    plot_args=("$out/sensitivity" --out "$out/sensitivity/crux-sensitivity.png")
    [ -n "$docs" ] && plot_args+=(--docs "$docs")
    /usr/bin/python3 scripts/plot_sensitivity.py "${plot_args[@]}" > "$out/sensitivity/table.md"
    cat "$out/sensitivity/table.md"
    if [ -n "$docs" ]; then
        mkdir -p "$(dirname "$docs")/img"
        cp "$out/sensitivity/crux-sensitivity.png" "$(dirname "$docs")/img/crux-sensitivity.png"
    fi
    echo "figure $out/sensitivity/crux-sensitivity.png, tables in $out/sensitivity/table.md"
    exit 0
fi

has_trace() { [ -e "$1/job.csv" ] || [ -e "$1/job.csv.gz" ]; }
mkdir -p "$out"
if [ -z "$trace" ]; then
    if has_trace traces/lingjun; then
        trace=traces/lingjun
    else
        trace=$out/trace
        has_trace "$trace" || $ccsim gen-trace --seed 1 --gzip --out "$trace"
    fi
fi
has_trace "$trace" || { echo "reproduce-crux.sh: $trace: no job.csv" >&2; exit 1; }
trace=$(cd "$trace" && pwd)
topo_csv=$(ls "$trace"/topo.csv "$trace"/topo.csv.gz 2>/dev/null | head -1 || true)
if [ "$placement" = recorded ]; then
    [ -n "$topo_csv" ] || { echo "reproduce-crux.sh: $trace: no topo.csv" >&2; exit 1; }
    hosts=":hosts_from=$topo_csv" policy=recorded
else
    hosts="" policy=$placement
fi

# The sweep: topology x scheduler over one base scenario.
python3 - "$out/reproduce-crux.json" "$trace" "$gpu" "$policy" "$scheds" "$start" "$end" "$hosts" "$topos" "$steady" "$job_model" <<'EOF'
import json, os, sys
path, trace, gpu, placement, scheds, start, end, hosts, topos, steady, job_model = sys.argv[1:]
# a sweep resumes by run name, which holds neither the mode nor the job
# model: never mix them (a sweep file without job_model is from before
# structured jobs became the default: flat)
if os.path.exists(path):
    with open(path) as f:
        was = json.load(f).get("base", {}).get("sim", {})
    for key, now, default in (("steady", steady, "exact"), ("job_model", job_model, "flat")):
        if was.get(key, default) != now:
            option = "--" + key.replace("_", "-")
            sys.exit(f"reproduce-crux.sh: {os.path.dirname(path)} holds {option} "
                     f"{was.get(key, default)} runs; choose another --out for {option} {now}")
sim = {"priority_levels": 8, "gpu": gpu, "placement": placement, "job_model": job_model}
if steady != "exact":
    sim["steady"] = steady
if start:
    sim["start_s"] = float(start)
if end:
    sim["end_s"] = float(end)
sweep = {"base": {"name": "reproduce-crux", "trace": {"lingjun": trace}, "sim": sim},
         "grid": {"topology": [t + hosts for t in topos.split(",")],
                  "scheduler": scheds.split(",")}}
with open(path, "w") as f:
    json.dump(sweep, f, indent=2)
    f.write("\n")
EOF

$ccsim sweep "$out/reproduce-crux.json" --out "$out/runs" -j "$jobs"
scripts/plot.sh "$out/runs" --out "$out/figures" --metric gpu_util_allocated_frac
table_args=("$out/runs/summary.csv" --trace "$trace")
[ -n "$docs" ] && table_args+=(--docs "$docs")
python3 scripts/crux_table.py "${table_args[@]}" > "$out/table.md"
cat "$out/table.md"
echo "figures in $out/figures/, table in $out/table.md"
