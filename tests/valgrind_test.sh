#!/usr/bin/env bash
# valgrind_test.sh - no leak and no memory error under
# `valgrind --leak-check=full`: the bundled default (its trace, topology and
# scheduler, over the first 5 minutes of its 2-hour window: the whole
# window is 17 million events, hours under valgrind) and Crux's worked
# example 1 (suite "slow"; `meson test -C build --setup full`).
# Not here: the sanitizer build (scripts/test.sh runs every test under it).
# Usage: tests/valgrind_test.sh CCSIM SOURCE_DIR
set -uo pipefail
ccsim=$(realpath "$1")
src=$2
if ! command -v valgrind >/dev/null; then
    echo "valgrind_test: SKIPPED (valgrind is not installed; scripts/deps.sh valgrind)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
vg() { # vg NAME ARGS...: run ccsim under valgrind; any leak or error fails
    local name=$1
    shift
    if valgrind --leak-check=full --show-leak-kinds=definite,indirect,possible \
        --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 -q \
        --log-file="$tmp/$name.vg" "$ccsim" "$@" >"$tmp/$name.out" 2>&1; then
        echo "ok - $name: no leak, no error"
    else
        echo "FAIL - $name (exit $?):"
        cat "$tmp/$name.vg" "$tmp/$name.out"
        failures=$((failures + 1))
    fi
}
vg default run --start 61260 --end 61560 -q -o "$tmp/default"
vg crux_example1 run --scenario "$src/examples/crux-example1.json" --sched crux -q -o "$tmp/crux"
echo "valgrind_test: $failures failure(s)"
[ "$failures" -eq 0 ]
