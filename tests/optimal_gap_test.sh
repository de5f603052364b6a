#!/usr/bin/env bash
# optimal_gap_test.sh - `ccsim optimal-gap` on 2 small cases (0.5 s
# windows): reusing equivalent runs and stopping hopeless ones (the
# default) gives the same cases.csv and summary.csv as replaying every
# candidate (--replay-all); a run killed after its first case and taken up
# with --resume gives them too; the journal is gone after a finished run,
# and an existing one is not overwritten without --resume.
# Usage: tests/optimal_gap_test.sh CCSIM_BINARY
set -euo pipefail
ccsim=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
args=(optimal-gap --cases 2 --window 0.5 --threads 1 --quiet)
failures=0
fail() { echo "FAIL - $*"; failures=$((failures + 1)); }

"$ccsim" "${args[@]}" -o fast > /dev/null
"$ccsim" "${args[@]}" --replay-all -o all > /dev/null
for f in cases.csv summary.csv; do
    cmp -s fast/$f all/$f || fail "$f differs between the default and --replay-all"
done
[ -e fast/cases.journal ] && fail "the journal survived a finished run"

# Interrupt a run once its journal holds a case, then resume it.
"$ccsim" "${args[@]}" --replay-all -o resumed > /dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do
    if [ -e resumed/cases.journal ] && [ "$(wc -l < resumed/cases.journal)" -ge 2 ]; then
        break
    fi
    sleep 0.1
done
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
if [ -e resumed/cases.csv ]; then
    echo "note: the run finished before it could be interrupted"
else
    if "$ccsim" "${args[@]}" -o resumed > /dev/null 2>&1; then
        fail "an existing journal was overwritten without --resume"
    fi
    "$ccsim" "${args[@]}" --resume -o resumed > /dev/null
fi
for f in cases.csv summary.csv; do
    cmp -s fast/$f resumed/$f || fail "$f differs after --resume"
done
[ -e resumed/cases.journal ] && fail "the journal survived the resumed run"

if [ "$failures" -ne 0 ]; then
    echo "optimal_gap_test: $failures failures"
    exit 1
fi
echo "optimal_gap_test: ok"
