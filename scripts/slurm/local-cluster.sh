#!/usr/bin/env bash
# local-cluster.sh - run a command against a real single-node Slurm started
# for it on this machine, then stop that Slurm.
#
# Usage: scripts/slurm/local-cluster.sh COMMAND [ARGS...]
#
# Installs Debian's slurm-wlm and munge if missing, writes a single-node
# slurm.conf for localhost in a temp folder (loopback only, two free ports
# chosen at random unless CCSIM_SLURM_PORT is set; the node has all of this
# machine's CPUs), starts munged, slurmctld and slurmd there, runs COMMAND
# with SLURM_CONF exported (so sbatch, squeue and sinfo talk to it) and
# stops everything it started, also when COMMAND fails.  It needs root.
# Exit status: COMMAND's; 77 when Slurm cannot run here (the reason on
# the last line: not root, CCSIM_SKIP_SLURM=1, packages not installable, a
# daemon that does not start).  CCSIM_KEEP_SLURM_DIR=1 keeps the temp
# folder (logs) for debugging.  docs/cluster.md says how the tests use it.
set -euo pipefail
skip() { echo "local-cluster: SKIPPED: $*"; exit 77; }
[ $# -ge 1 ] || { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[ "${CCSIM_SKIP_SLURM:-0}" = 1 ] && skip "CCSIM_SKIP_SLURM=1"
[ "$(id -u)" -eq 0 ] || skip "needs root (to run slurmctld, slurmd and munged)"
source "$(dirname "$0")/../deps.sh"
if ! ccsim_install_packages slurm-wlm munge >/dev/null 2>&1; then
    skip "cannot install slurm-wlm and munge"
fi
for cmd in munged slurmctld slurmd sbatch sinfo; do
    command -v "$cmd" >/dev/null || skip "$cmd not found after installing slurm-wlm"
done

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
        echo "local-cluster: kept $T"
    else
        rm -rf "$T"
    fi
}
trap cleanup EXIT

# --- munge: our own key and socket --------------------------------------------------
mkdir -p "$T/munge" "$T/state" "$T/spool"
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
echo "local-cluster: Slurm $(sinfo --version | cut -d' ' -f2) up on localhost, $(nproc) CPUs" >&2

status=0
"$@" || status=$?
exit "$status"
