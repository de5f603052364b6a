#!/bin/sh
# approx_check_test.sh - scripts/compare-results.py --approx checks an
# approximate run against the event path within the bounds the
# approximate run reports (docs/engine.md §5d): examples/scenario-4hosts.json
# run both ways must pass (one jump, every job within its bound); the same
# approximate run with one job's iterations moved past the bound must
# fail and name the job; misuse (the runs swapped, two different
# scenarios, a folder that holds no run) is an error.
# Usage: approx_check_test.sh CCSIM SOURCE_ROOT
ccsim=${1:?usage: approx_check_test.sh CCSIM SOURCE_ROOT}
root=${2:?usage: approx_check_test.sh CCSIM SOURCE_ROOT}
check="python3 $root/scripts/compare-results.py --approx"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$ccsim" run -q --scenario "$root/examples/scenario-4hosts.json" --steady approx -o "$tmp/a" >/dev/null || fail "approx run"
"$ccsim" run -q --scenario "$root/examples/scenario-4hosts.json" -o "$tmp/e" >/dev/null || fail "exact run"
"$ccsim" run -q --scenario "$root/examples/crux-example1.json" -o "$tmp/other" >/dev/null || fail "other run"
grep -Eq '"steady_approx_jumps":[[:space:]]*[1-9]' "$tmp/a/run.json" || fail "no jump in the approximate run"

if out=$($check "$tmp/a" "$tmp/e"); then
    echo "$out" | tail -n 1 | grep -qx OK || fail "within the bounds but no OK: $out"
else
    fail "within the bounds but exit $?: $out"
fi

# job j1 of the approximate run moved 1000 iterations (far past its bound)
cp -r "$tmp/a" "$tmp/moved"
awk -F, 'BEGIN { OFS = "," } NR == 1 { for (k = 1; k <= NF; k++) if ($k == "iterations") c = k }
         NR > 1 && $1 == "j1" { $c += 1000 } { print }' "$tmp/a/jobs.csv" >"$tmp/moved/jobs.csv"
if out=$($check "$tmp/moved" "$tmp/e"); then
    fail "a job 1000 iterations off passed: $out"
else
    echo "$out" | grep -q '^job j1: .* beyond the bound' || fail "the job beyond its bound not named: $out"
fi

$check "$tmp/e" "$tmp/a" >/dev/null 2>"$tmp/err" && fail "the runs swapped passed"
grep -q 'not a --steady approx run' "$tmp/err" || fail "swapped: $(cat "$tmp/err")"
$check "$tmp/a" "$tmp/other" >/dev/null 2>"$tmp/err" && fail "two scenarios passed"
grep -q 'not the same run' "$tmp/err" || fail "two scenarios: $(cat "$tmp/err")"
$check "$tmp/a" "$tmp/none" >/dev/null 2>"$tmp/err" && fail "a missing folder passed"
grep -q "^compare-results.py: $tmp/none: not a result folder" "$tmp/err" || fail "missing: $(cat "$tmp/err")"

[ "$fails" -eq 0 ] && echo "approx_check: OK"
exit "$fails"
