#!/usr/bin/env bash
# submit.sh - submit a ccsim sweep to Slurm: a job array of N shards, then a
# merge job that runs when every shard succeeded (--dependency=afterok) and
# is cancelled if one failed (--kill-on-invalid-dep=yes).
#
# Usage: scripts/slurm/submit.sh SWEEP.json OUTDIR [--shards N] [--cpus C] [--wait]
#                                [-- EXTRA_SBATCH_OPTIONS...]
#   --shards N  array tasks (default: the number of runs, at most 32)
#   --cpus C    CPUs per task = parallel runs per task (default 1)
#   --wait      block until the merge job ends; exit with its status
# Environment: CCSIM, the ccsim binary (default: build/ccsim of this
# checkout if built, else `ccsim` on PATH); it must be reachable at the
# same path on the compute nodes, as must SWEEP.json and OUTDIR.
# Prints the two job ids.  docs/cluster.md explains the rest.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
sweep=$(realpath "$1")
out=$(realpath -m "$2")
shift 2
shards="" cpus=1 wait=""
while [ $# -gt 0 ]; do
    case $1 in
        --shards) shards=$2; shift 2 ;;
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
runs=$("$CCSIM" sweep --dry-run "$sweep" | wc -l)
[ "$runs" -gt 0 ] || { echo "submit.sh: $sweep has no runs" >&2; exit 1; }
if [ -z "$shards" ]; then
    shards=$((runs < 32 ? runs : 32))
fi
mkdir -p "$out/slurm"
array=$(sbatch --parsable --array="0-$((shards - 1))" --cpus-per-task="$cpus" \
        --output="$out/slurm/shard-%a.out" --export=ALL "$@" \
        "$here/sweep.sbatch" "$sweep" "$out")
array=${array%%;*}
echo "submit.sh: $runs runs in $shards shards: array job $array" >&2
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
