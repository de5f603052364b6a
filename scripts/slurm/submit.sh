#!/usr/bin/env bash
# submit.sh - submit a ccsim sweep to Slurm: a job array of N tasks, then a
# merge job that runs when every task succeeded (--dependency=afterok) and
# is cancelled if one failed (--kill-on-invalid-dep=yes).  The sweep's work
# is its tasks: one per run, one per time shard of a run split with
# sim.shards (docs/cluster.md); array task I runs those with index = I mod N.
#
# Usage: scripts/slurm/submit.sh SWEEP.json OUTDIR [--tasks N] [--cpus C] [--wait]
#                                [-- EXTRA_SBATCH_OPTIONS...]
#   --tasks N   array tasks (default: the sweep's tasks, at most 32)
#   --cpus C    CPUs per array task = its tasks run in parallel (default 1)
#   --wait      block until the merge job ends; exit with its status
# Environment: CCSIM, the ccsim binary (default: build/ccsim of this
# checkout if built, else `ccsim` on PATH); it must be reachable at the
# same path on the compute nodes, as must SWEEP.json and OUTDIR.
# Prints the two job ids.  docs/cluster.md explains the rest.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
sweep=$(realpath "$1")
out=$(realpath -m "$2")
shift 2
tasks="" cpus=1 wait=""
while [ $# -gt 0 ]; do
    case $1 in
        --tasks) tasks=$2; shift 2 ;;
        --shards) echo "submit.sh: --shards is now --tasks (array tasks); time shards of a run are" \
                       "sim.shards in the sweep (docs/cluster.md)" >&2; exit 2 ;;
        --cpus) cpus=$2; shift 2 ;;
        --wait) wait=--wait; shift ;;
        --) shift; break ;;
        *) usage ;;
    esac
done
if [ -z "${CCSIM:-}" ]; then
    if [ -x "$here/../../build/ccsim" ]; then
        CCSIM=$(realpath "$here/../../build/ccsim")
    else
        CCSIM=$(command -v ccsim) || { echo "submit.sh: no ccsim (set CCSIM)" >&2; exit 1; }
    fi
fi
export CCSIM
# one line per task: a run, or one time shard of a split run
work=$("$CCSIM" sweep --dry-run "$sweep" | wc -l)
[ "$work" -gt 0 ] || { echo "submit.sh: $sweep has no runs" >&2; exit 1; }
if [ -z "$tasks" ]; then
    tasks=$((work < 32 ? work : 32))
fi
mkdir -p "$out/slurm"
array=$(sbatch --parsable --array="0-$((tasks - 1))" --cpus-per-task="$cpus" \
        --output="$out/slurm/task-%a.out" --export=ALL "$@" \
        "$here/sweep.sbatch" "$sweep" "$out")
array=${array%%;*}
echo "submit.sh: $work sweep tasks in $tasks array tasks: array job $array" >&2
merge_args=(--parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes
            --output="$out/slurm/merge.out" --export=ALL)
if [ -n "$wait" ]; then
    set +e
    sbatch --wait "${merge_args[@]}" "$@" "$here/merge.sbatch" "$out"
    status=$?
    set -e
    echo "submit.sh: merge job ended with status $status; log: $out/slurm/merge.out" >&2
    exit $status
fi
merge=$(sbatch "${merge_args[@]}" "$@" "$here/merge.sbatch" "$out")
echo "submit.sh: merge job ${merge%%;*} runs after array job $array" >&2
echo "$array ${merge%%;*}"
