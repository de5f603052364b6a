#!/usr/bin/env bash
# test-slurm.sh - run a ccsim sweep through a real Slurm on this machine and
# check the merged summary equals a local run of the same sweep (wall_s,
# peak_rss_bytes and the scenario path column aside).
#
# Installs Debian's slurm-wlm and munge if missing, writes a single-node
# slurm.conf for localhost in a temp folder (loopback only, two free ports
# chosen at random unless CCSIM_SLURM_PORT is set), starts munged, slurmctld and
# slurmd there, submits with scripts/slurm/submit.sh --wait (array of 3
# shards + dependent merge), and stops everything it started on exit.
#
# Needs root.  Exit 0 passed, 1 failed, 77 skipped (with the reason on the
# last line); CCSIM_SKIP_SLURM=1 skips.
# Usage: scripts/test-slurm.sh [CCSIM_BINARY]   (default build/ccsim)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
skip() { echo "test-slurm: SKIPPED: $*"; exit 77; }

[ "${CCSIM_SKIP_SLURM:-0}" = 1 ] && skip "CCSIM_SKIP_SLURM=1"
[ "$(id -u)" -eq 0 ] || skip "needs root (to run slurmctld, slurmd and munged)"
source scripts/deps.sh
if ! ccsim_install_packages slurm-wlm munge >/dev/null 2>&1; then
    skip "cannot install slurm-wlm and munge"
fi
for cmd in munged slurmctld slurmd sbatch sinfo; do
    command -v "$cmd" >/dev/null || skip "$cmd not found after installing slurm-wlm"
done

ccsim=${1:-build/ccsim}
if [ ! -x "$ccsim" ]; then
    scripts/build.sh build
    ccsim=build/ccsim
fi
ccsim=$(realpath "$ccsim")

T=$(mktemp -d /tmp/ccsim-slurm.XXXXXX)
chmod 755 "$T"
pids=()
cleanup() {
    local i
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill "${pids[$i]}" 2>/dev/null || true
    done
    for i in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$i" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$i" 2>/dev/null || true
    done
    if [ "${CCSIM_KEEP_SLURM_DIR:-0}" = 1 ]; then
        echo "test-slurm: kept $T"
    else
        rm -rf "$T"
    fi
}
trap cleanup EXIT

# --- munge: our own key and socket --------------------------------------------------
mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/work"
chmod 700 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$T/munge/munge.key"
sock=$T/munge/munge.sock
munged -F -f --socket="$sock" --key-file="$T/munge/munge.key" \
    --pid-file="$T/munge/munged.pid" --seed-file="$T/munge/munged.seed" \
    --log-file="$T/munge/munged.log" > "$T/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
if ! munge -S "$sock" -n 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1; then
    tail -n 5 "$T/munged.out" >&2 || true
    skip "munged does not run here"
fi

# --- Slurm: one node, localhost -------------------------------------------------------
# Two free loopback ports (several test runs may share the machine).
port_free() { ! (exec 3<> "/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=${CCSIM_SLURM_PORT:-}
if [ -z "$port" ]; then
    for _ in $(seq 50); do
        port=$((20000 + RANDOM % 20000))
        port_free "$port" && port_free $((port + 1)) && break
    done
fi
export SLURM_CONF=$T/slurm.conf
: > "$T/plugstack.conf"
cat > "$SLURM_CONF" <<CONF
ClusterName=ccsimtest
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
PlugStackConfig=$T/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -D -c > "$T/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N localhost > "$T/slurmd.out" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 100); do
    state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.2
done
if [ "$state" != idle ]; then
    tail -n 5 "$T/slurmctld.out" "$T/slurmd.out" >&2 || true
    skip "slurmctld/slurmd did not come up (node state '${state:-none}')"
fi
echo "test-slurm: Slurm $(sinfo --version | cut -d' ' -f2) up on localhost, $(nproc) CPUs"

# --- the sweep, locally and through Slurm ----------------------------------------------
cp tests/data/sweep_base.json tests/data/sweep_small.json "$T/work/"
cd "$T/work"
if "$ccsim" run --help >/dev/null 2>&1; then
    echo "test-slurm: workers: the real 'ccsim run'"
else
    echo "test-slurm: workers: tests/fake_ccsim_run.sh (this ccsim has no 'run' yet)"
    export CCSIM_SWEEP_WORKER=$root/tests/fake_ccsim_run.sh
fi
"$ccsim" sweep sweep_small.json --out local -j 2 > /dev/null 2>&1
status=0
CCSIM=$ccsim timeout 600 "$root/scripts/slurm/submit.sh" sweep_small.json slurm-out \
    --shards 3 --wait -- --time=10 > /dev/null || status=$?
if [ "$status" -ne 0 ]; then
    echo "test-slurm: FAILED: the merge job ended with status $status"
    tail -n 20 slurm-out/slurm/*.out 2>/dev/null || true
    exit 1
fi
stable_csv() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) drop[i] = ($i == "wall_s" || $i == "peak_rss_bytes" || $i == "scenario") }
             { out = ""; n = 0
               for (i = 1; i <= NF; i++) if (!drop[i]) { out = out (n++ ? "," : "") $i }
               print out }' "$1"
}
shards=$(ls slurm-out/slurm/shard-*.out | wc -l)
if [ "$shards" -ne 3 ]; then
    echo "test-slurm: FAILED: expected 3 shard logs, found $shards"
    exit 1
fi
if ! diff <(stable_csv local/summary.csv) <(stable_csv slurm-out/summary.csv); then
    echo "test-slurm: FAILED: the merged Slurm summary differs from the local sweep"
    exit 1
fi
echo "test-slurm: passed: 3 array tasks + merge job; $(($(wc -l < local/summary.csv) - 1)) runs equal the local sweep"
