#!/usr/bin/env bash
# optimal_gap_check.sh - `ccsim optimal-gap` on one small case (0.5 s
# window), its files checked against what the method implies, not read
# back from the code (docs/validation.md, "Optimality gap"):
#  - 403 replays per case: 2^5 job-level routes + 5! rankings + 3^5 level
#    assignments + the 8 schedulers judged (all but fixed and ideal);
#  - the optimum is the best utilization of all of them, so it is the
#    maximum of every best_* and scheduler column, and every ratio is <= 1;
#  - summary.csv's ratios follow from cases.csv: each scheduler's util
#    over the optimum; paths and priorities: crux-ps-pa over the best
#    route and ranking; compression: crux over the best level assignment.
# meson test "optimal_gap", suite "integration".
# Usage: tests/optimal_gap_check.sh CCSIM_BINARY
set -euo pipefail
ccsim=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ccsim" optimal-gap --cases 1 --window 0.5 --threads 1 --quiet -o "$tmp/og" > /dev/null
python3 - "$tmp/og/cases.csv" "$tmp/og/summary.csv" <<'PY'
import csv, sys
cases = list(csv.DictReader(open(sys.argv[1])))
summary = {(r["kind"], r["name"]): r for r in csv.DictReader(open(sys.argv[2]))}
assert len(cases) == 1, cases
c = {k: (float(v) if k.endswith("_frac") else v) for k, v in cases[0].items()}
assert int(c["runs"]) == 2 ** 5 + 120 + 3 ** 5 + 8, c["runs"]
utils = {k: v for k, v in c.items() if k.endswith("_util_frac") and k != "opt_util_frac"}
assert abs(c["opt_util_frac"] - max(utils.values())) < 1e-12, c
scheds = [k[:-len("_util_frac")].replace("_", "-") for k in utils if not k.startswith("best_")]
assert len(scheds) == 8 and "fixed" not in scheds and "ideal" not in scheds, scheds
want = {("scheduler", s): c[s.replace("-", "_") + "_util_frac"] / c["opt_util_frac"]
        for s in scheds}
want[("mechanism", "paths")] = c["crux_ps_pa_util_frac"] / c["best_paths_util_frac"]
want[("mechanism", "priorities")] = c["crux_ps_pa_util_frac"] / c["best_priorities_util_frac"]
want[("mechanism", "compression")] = c["crux_util_frac"] / c["best_compression_util_frac"]
assert set(want) == set(summary), (sorted(want), sorted(summary))
for key, w in want.items():
    r = summary[key]
    assert 0 < w <= 1 + 1e-12, (key, w)
    for col in ("mean_ratio", "p10_ratio", "min_ratio"):  # one case: all equal
        assert abs(float(r[col]) - w) <= 1e-9 * w, (key, col, r[col], w)
print("optimal_gap_check: ok")
PY
