#!/usr/bin/env bash
# fake_ccsim_run.sh - a stand-in for `ccsim run` in the sweep tests: reads
# the scheduler, topology and seed of --scenario FILE and writes, into --out
# DIR, the output files of `ccsim run` (summary.csv last, atomically) with
# numbers that depend only on the scenario.  An unknown scheduler fails
# like the real one (exit 1, `ccsim: ...` on stderr).  FAKE_RUN_SLEEP_S
# makes each run take that long.  Used through CCSIM_SWEEP_WORKER.
set -euo pipefail
[ "${1:-}" = run ] || { echo "ccsim: fake: expected 'run'" >&2; exit 2; }
shift
scenario="" out=""
while [ $# -gt 0 ]; do
    case $1 in
        --scenario) scenario=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --*=*) shift ;;
        *) echo "ccsim: fake: unexpected argument '$1'" >&2; exit 2 ;;
    esac
done
field() { # the first "KEY": VALUE of the scenario, quotes removed
    grep -o "\"$1\":[[:space:]]*[^,}]*" "$scenario" | head -1 | sed 's/^[^:]*:[[:space:]]*//; s/"//g; s/[[:space:]]*$//'
}
sched=$(field scheduler)
topo=$(field topology)
seed=$(field seed)
case $sched in
    ecmp|ideal|fixed|crux|crux-pa|crux-ps-pa|sincronia|taccl|cassini) ;;
    *) echo "ccsim: $scenario: scheduler: unknown scheduler '$sched'" >&2; exit 1 ;;
esac
sleep "${FAKE_RUN_SLEEP_S:-0}"
h=$(cksum < "$scenario" | cut -d' ' -f1)
mkdir -p "$out"
awk -v h="$h" -v sched="$sched" -v topo="$topo" -v seed="${seed:-1}" -v out="$out" 'BEGIN {
    base = (sched == "ecmp") ? 0.60 : (sched == "ideal") ? 0.80 : 0.70
    u = base + (h % 100) / 1000.0
    printf "t_s,active_jobs,active_gpus,busy_gpus,gpu_util_cluster_frac,gpu_util_allocated_frac\n" > out "/timeseries.csv"
    printf "t_s,tier,links,capacity_Gbps,carried_bytes,util_frac,intensity_occupancy_gpus\n" > out "/links.csv"
    for (t = 0; t < 600; t += 60) {
        x = u + 0.05 * sin(t / 100.0 + h % 7)
        printf "%d,%d,%d,%.6f,%.6f,%.6f\n", t, 3, 48, 48 * x, x * 0.75, x >> out "/timeseries.csv"
        split("nvlink,pcie,tor,agg,core", tiers, ",")
        for (k = 1; k <= 5; k++)
            printf "%d,%s,%d,%.6g,%.6g,%.6f,%.6f\n", t, tiers[k], 8 * k, 8 * k * 200, 8 * k * 25e9 * 60 * x / k, x / k, (x / k) * (1 + (t % 120) / 120.0) / 2 >> out "/links.csv"
    }
    printf "job_id,model,gpus,hosts,start_s,end_s,iterations,busy_gpu_s,isolated_iter_s,mean_iter_s,slowdown,gpu_intensity_gpus,priority,shift_s,status,ran\n" > out "/jobs.csv"
    for (j = 0; j < 20; j++) {
        s = 1 + ((h + 37 * j) % 50) / 100.0 * (1 - u)
        printf "j%d,bert-large,16,2,0,600,%d,%.3f,0.5,%.6f,%.6f,%.3f,0,0,ran,1\n", j, 600 / (0.5 * s), 16 * 600 * u, 0.5 * s, s, 1.5 >> out "/jobs.csv"
    }
    tmp = out "/.summary.csv.tmp"
    printf "scenario,topology,trace,scheduler,seed,mode,sim_start_s,sim_end_s,jobs,gpus_total,gpu_util_cluster_frac,gpu_util_allocated_frac,busy_gpu_s,iterations,mean_slowdown,p99_slowdown,wall_s,events,peak_rss_bytes\n" > tmp
    printf "fake,%s,jobs,%s,%s,window,0,600,20,64,%.6f,%.6f,%.3f,%d,%.6f,%.6f,%.3f,%d,%d\n", topo, sched, seed, u * 0.75, u, 64 * 600 * u * 0.75, 4000 + h % 100, 1 + (1 - u), 1 + 2 * (1 - u), rand(), 1000 + h % 1000, 1000000 + int(rand() * 1000) >> tmp
    close(tmp)
}'
echo '{"fake": true}' > "$out/run.json"
mv "$out/.summary.csv.tmp" "$out/summary.csv"
