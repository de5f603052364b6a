#!/bin/sh
# layering_test.sh - scripts/check-layering.sh passes on this repository and
# fails, naming the file and line, on tiny fixture trees that break each rule.
# Usage: layering_test.sh SOURCE_ROOT
# The last line imitates a CUnit run summary ("tests N N PASSED FAILED 0") so
# that scripts/test.sh counts these checks with the others.
root=${1:?usage: layering_test.sh SOURCE_ROOT}
check="$root/scripts/check-layering.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() {
    pass=$((pass + 1))
    echo "ok: $1"
}
ko() {
    fail=$((fail + 1))
    echo "FAILED: $1"
}

# A fixture tree: one small file per layer, every include allowed.
make_fixture() {
    d=$1
    mkdir -p "$d/base" "$d/topo" "$d/traces" "$d/sim/cli" "$d/sim/experiments" \
        "$d/sim/steady" "$d/schedulers" "$d/tests"
    printf '#include <glib.h>\n' >"$d/base/ccs.h"
    printf '#include "base/ccs.h"\n' >"$d/topo/topo.h"
    printf '#include "base/ccs.h"\n' >"$d/traces/trace.h"
    printf '#include "topo/topo.h"\n#include "traces/trace.h"\n' >"$d/sim/net.h"
    printf '#include "net.h"\n' >"$d/sim/net-private.h"
    printf '#include "net-private.h"\n#include "ccs-config.h"\n' >"$d/sim/net.c"
    printf '#include "sim/net.h"\n' >"$d/sim/scheduler.h"
    printf '#include "sim/net.h"\n' >"$d/sim/steady/steady.h"
    printf '#include "steady.h"\n' >"$d/sim/steady/steady-private.h"
    printf '#include "steady-private.h"\n#include "sim/scheduler.h"\n' >"$d/sim/steady/steady.c"
    printf '#include "sim/steady/steady.h"\n' >"$d/sim/replay.c"
    printf '#include "sim/scheduler.h"\n' >"$d/schedulers/registry.h"
    printf '#include "schedulers/registry.h"\n' >"$d/sim/experiments/sweep.h"
    printf '#include "sim/experiments/sweep.h"\n' >"$d/sim/cli/cli.h"
    printf '#include "sim/cli/cli.h"\n#include "sim/net-private.h"\n' >"$d/tests/test_net.c"
}

# expect_fail NAME FILE TEXT WANT: FILE (from the fixture root) gets the line
# TEXT; the check must exit 1 and print WANT.
expect_fail() {
    name=$1
    d="$tmp/$name"
    make_fixture "$d"
    printf '%s\n' "$3" >>"$d/$2"
    out=$("$check" --root "$d" 2>&1)
    st=$?
    if [ "$st" -eq 1 ] && printf '%s\n' "$out" | grep -qF -- "$4"; then
        ok "$name"
    else
        ko "$name (exit $st, wanted 1 and '$4'): $out"
    fi
}

if out=$("$check" 2>&1); then
    ok "this repository: $out"
else
    ko "this repository: $out"
fi

d="$tmp/clean"
make_fixture "$d"
if out=$("$check" --root "$d" 2>&1); then
    ok "clean fixture"
else
    ko "clean fixture: $out"
fi

expect_fail upward topo/topo.h '#include "sim/net.h"' \
    'topo/topo.h:2: #include "sim/net.h": topo/ (layer 1) may not include from sim/ (layer 2)'
expect_fail sibling topo/topo.h '#include "traces/trace.h"' \
    'topo/topo.h:2: #include "traces/trace.h": topo/ (layer 1) may not include from traces/ (layer 1)'
expect_fail engine_to_scheduler sim/net.c '#include "schedulers/registry.h"' \
    'sim/net.c:3: #include "schedulers/registry.h": sim/ (layer 2)'
expect_fail experiments_to_cli sim/experiments/sweep.h '#include "sim/cli/cli.h"' \
    'sim/experiments/sweep.h:2: #include "sim/cli/cli.h"'
expect_fail private_across sim/cli/cli.h '#include "sim/net-private.h"' \
    'sim/cli/cli.h:2: #include "sim/net-private.h": a private header of sim/'
expect_fail wing_private sim/replay.c '#include "sim/steady/steady-private.h"' \
    'sim/replay.c:2: #include "sim/steady/steady-private.h": a private header of sim/steady/'
expect_fail engine_private_from_wing sim/steady/steady.c '#include "sim/net-private.h"' \
    'sim/steady/steady.c:3: #include "sim/net-private.h": a private header of sim/'
expect_fail dotdot sim/cli/cli.h '#include "../net.h"' \
    'sim/cli/cli.h:2: #include "../net.h": name other folders'
expect_fail unknown_header sim/net.c '#include "nope.h"' \
    'sim/net.c:3: #include "nope.h": no such header'
d="$tmp/unmapped"
make_fixture "$d"
mkdir -p "$d/extra"
printf '#include "base/ccs.h"\n' >"$d/extra/x.c"
out=$("$check" --root "$d" 2>&1)
if [ $? -eq 1 ] && printf '%s\n' "$out" | grep -qF 'extra/x.c:1: folder extra/ has no layer'; then
    ok "unmapped folder"
else
    ko "unmapped folder: $out"
fi

total=$((pass + fail))
printf '               tests %6d %6d %6d %6d %8d\n' "$total" "$total" "$pass" "$fail" 0
[ "$fail" -eq 0 ]
