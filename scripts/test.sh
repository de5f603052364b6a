#!/usr/bin/env bash
# test.sh - install what is missing, build, and run the tests: in a normal
# build (build/) and under AddressSanitizer + UndefinedBehaviorSanitizer
# (build-asan/).  Prints each suite's CUnit summary, the ten slowest tests
# and a closing count line.
# Usage: scripts/test.sh [--full] [MESON_TEST_ARGS...]   (e.g. --suite unit)
#
# The everyday run (a few minutes on two cores, docs/testing.md): every
# test in build/; under ASan every test but suite "soak" (the ones that
# take minutes there); the Slurm test where the machine allows it.
# --full (what .ci/run passes) adds the soaks: suite "slow" (valgrind) in
# build/, suite "soak" under ASan, and libFuzzer's fresh fuzzing of every
# harness (CCSIM_FUZZ_SECONDS each, default 60) in a clang build.
set -euo pipefail
cd "$(dirname "$0")/.."
full=0
args=()
for a in "$@"; do
    if [ "$a" = --full ]; then full=1; else args+=("$a"); fi
done
set -- ${args[@]+"${args[@]}"}
source scripts/deps.sh
ccsim_install_packages "${CCSIM_PACKAGES[@]}"
# For the plot and Python tests (skipped, saying so, when missing).
ccsim_install_packages python3-matplotlib python3-pandas ||
    echo "test.sh: could not install python3-matplotlib python3-pandas; the plot and Python tests will be skipped"
# For the packet-level cross-check (validate/ns3, docs/validation.md): its
# tests report SKIP without ns-3.
ccsim_install_packages g++ libns3-dev ns3 ||
    echo "test.sh: could not install ns-3 (libns3-dev); the packet cross-check tests will be skipped"

passed=0
failed=0
status=0
t0=$SECONDS

# Sum the "tests" rows of every CUnit run summary in meson test logs
# (0 0 when there is none: meson itself failed, and said so).
count_cunit() {
    cat "$@" 2>/dev/null |
        awk '$1 == "tests" && NF >= 6 { ran += $3; pass += $4; fail += $5 }
             END { printf "%d %d\n", pass, fail }'
}

run_suite() {
    local dir=$1
    shift
    echo "== tests in $dir ($*)"
    # The log is testlog.txt, or testlog-SETUP.txt under --setup SETUP:
    # remove earlier ones so that the one left is this run's.
    rm -f "$dir"/meson-logs/testlog*.txt "$dir"/meson-logs/testlog*.json
    if ! meson test -C "$dir" --print-errorlogs "$@"; then
        status=1
    fi
    local p f
    read -r p f < <(count_cunit "$dir"/meson-logs/testlog*.txt)
    passed=$((passed + p))
    failed=$((failed + f))
    echo "$dir: $p passed, $f failed"
}

# The ten slowest tests of both builds (meson's JSON logs).
slowest() {
    python3 - build/meson-logs/testlog*.json build-asan/meson-logs/testlog*.json <<'PY'
import json, os, sys
rows = []
for path in sys.argv[1:]:
    build = path.split(os.sep)[0]
    with open(path) as f:
        rows += [(json.loads(l), build) for l in f if l.strip()]
rows.sort(key=lambda r: -r[0]["duration"])
print("== the ten slowest tests")
for r, build in rows[:10]:
    print("%7.1f s  %-6s %-10s %s" % (r["duration"], r["result"], build, r["name"]))
PY
}

echo "== building build/ (meson + ninja)"
scripts/build.sh build
[ -x build/validate/ns3/ccsim-packet ] ||
    echo "== packet cross-check (packet_replay, packet_crosscheck): SKIPPED (meson found no ns-3)"
if [ "$full" = 1 ]; then
    # valgrind for the slow suite (tests/valgrind_test.sh), run in build/ only.
    ccsim_install_packages valgrind ||
        echo "test.sh: could not install valgrind; the valgrind test will be skipped"
    run_suite build --setup full "$@"
else
    run_suite build "$@"
fi

echo "== building build-asan/ (AddressSanitizer + UndefinedBehaviorSanitizer)"
scripts/build.sh build-asan -Db_sanitize=address,undefined -Db_lundef=false
asan_args=("$@")
if [ "$full" = 0 ] && [ $# -eq 0 ]; then
    asan_args=(--no-suite soak)
fi
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    run_suite build-asan ${asan_args[@]+"${asan_args[@]}"}

# Fuzzing (tests/fuzz, docs/testing.md): with clang's libFuzzer every
# harness runs over its corpus and then CCSIM_FUZZ_SECONDS (default 60) of
# fresh fuzzing, in an ASan + UBSan build.  Without --full, or without
# clang, the corpus replay of suite "fuzz" above is all, said here.
if [ "$full" = 0 ]; then
    echo "== fuzzing: SKIPPED (--full runs ${CCSIM_FUZZ_SECONDS:-60} s per harness; the corpus replay ran as suite fuzz)"
else
    ccsim_install_packages clang-14 libclang-rt-14-dev ||
        echo "test.sh: could not install clang-14; fuzzing will be skipped"
    if command -v clang >/dev/null; then
        echo "== fuzzing: ${CCSIM_FUZZ_SECONDS:-60} s per harness"
        CC=clang scripts/build.sh build-fuzz -Dlibfuzzer=true \
            -Db_sanitize=address,undefined -Db_lundef=false
        scripts/fuzz.sh build-fuzz "${CCSIM_FUZZ_SECONDS:-60}" || status=1
    else
        echo "== fuzzing: SKIPPED (no clang; the corpus replay ran as suite fuzz)"
    fi
fi

# A sweep through a real single-node Slurm (scripts/test-slurm.sh): needs
# root; CCSIM_SKIP_SLURM=1 skips it.
if [ "${CCSIM_SKIP_SLURM:-0}" = 1 ]; then
    echo "== slurm test: SKIPPED (CCSIM_SKIP_SLURM=1)"
elif [ "$(id -u)" -ne 0 ]; then
    echo "== slurm test: SKIPPED (needs root to run slurmctld, slurmd and munged)"
else
    echo "== slurm test"
    slurm_status=0
    scripts/test-slurm.sh build/ccsim || slurm_status=$?
    if [ "$slurm_status" -eq 77 ]; then
        echo "== slurm test: SKIPPED (reason above)"
    elif [ "$slurm_status" -ne 0 ]; then
        echo "== slurm test: FAILED"
        status=1
    fi
fi

slowest || true
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
    failed=1   # a suite crashed before CUnit could count it
fi
echo "tests: $passed passed, $failed failed, $((SECONDS - t0)) s$([ "$full" = 1 ] && echo ", --full")"
exit $status
