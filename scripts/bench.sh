#!/usr/bin/env bash
# bench.sh - engine microbenchmarks: builds a release build in build-bench/,
# runs tests/bench_net (each case in its own process, so peak RSS is per
# case) and writes the figures to docs/performance.md.  When SimGrid
# (libsimgrid-dev, pkg-config simgrid) and a C++ compiler are there, it also
# builds tests/bench_simgrid.cpp and times SimGrid's max-min solver on the
# same systems in the same run; otherwise it says so and runs ccsim's half.
# Usage: scripts/bench.sh
# Environment: SEED (default 1), SHAPES ("small medium big huge"),
# CHURN8_EVENTS (100000), CHURN64_EVENTS
# (50000), CHURN512_EVENTS (10000) - the defaults keep the run near 4 minutes
# on a 2-core machine; set them to 100000 for the full-length churn runs
# (about 2 and 10 minutes more).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
ccsim_install_packages "${CCSIM_PACKAGES[@]}"
scripts/build.sh build-bench --buildtype=release -Dtests=true
bench=build-bench/tests/bench_net
shapes=${SHAPES:-small medium big huge}
seed=${SEED:-1}
ev8=${CHURN8_EVENTS:-100000}
ev64=${CHURN64_EVENTS:-50000}
ev512=${CHURN512_EVENTS:-10000}

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
load=$(cut -d' ' -f1-3 /proc/loadavg)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
out=docs/performance.md
tmp=$(mktemp)
tmpd=$(mktemp -d)
trap 'rm -rf "$tmp" "$tmpd"' EXIT

# The optional SimGrid side (never needed by meson or CI).
sg=""
sg_version=""
sg_why=""
if ! command -v c++ >/dev/null; then
    sg_why="no C++ compiler (c++)"
elif ! pkg-config --exists simgrid; then
    sg_why="SimGrid not found (pkg-config simgrid; Debian: libsimgrid-dev)"
elif ! { cc -O3 -Wall -Wextra -Werror -c tests/maxmin_gen.c $(pkg-config --cflags glib-2.0) \
            -o "$tmpd/maxmin_gen.o" &&
          c++ -O3 -std=c++17 -Wall -Wextra -Werror -Itests tests/bench_simgrid.cpp \
            "$tmpd/maxmin_gen.o" $(pkg-config --cflags --libs glib-2.0 simgrid) \
            -o build-bench/bench_simgrid; } 2>"$tmpd/sg_build.log"; then
    sg_why="its driver did not build against SimGrid $(pkg-config --modversion simgrid): $(head -c 300 "$tmpd/sg_build.log")"
else
    sg=build-bench/bench_simgrid
    sg_version=$(pkg-config --modversion simgrid)
fi
[ -n "$sg" ] || echo "SimGrid comparison skipped: $sg_why" >&2

{
echo "# Engine performance"
echo
echo "Written by \`scripts/bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), git $commit."
echo "Machine: $(nproc) CPUs, $cpu; load average at start $load."
echo "Build: \`meson setup build-bench --buildtype=release\` (gcc -O3), one thread."
echo "Times are CPU time of the process (\`CLOCK_PROCESS_CPUTIME_ID\`), not wall"
echo "time, because the build machine is shared; peak RSS is \`getrusage()\`."
echo
echo "## Full solves on SimGrid maxmin_bench shapes, side by side with SimGrid"
echo
echo "Commands: \`build-bench/tests/bench_net maxmin SHAPE $seed\` and"
if [ -n "$sg" ]; then
    echo "\`build-bench/bench_simgrid SHAPE $seed\` (\`tests/bench_simgrid.cpp\`, built by"
    echo "this script against libsimgrid $sg_version)."
else
    echo "\`build-bench/bench_simgrid SHAPE $seed\` (\`tests/bench_simgrid.cpp\`; not built"
    echo "in this run, see below)."
fi
echo "Both build the same system from the same seed (\`tests/maxmin_gen.c\`): SimGrid's"
echo "\`maxmin_bench\` shapes drawn draw for draw as that benchmark draws them"
echo "(constraints with bounds U(0,10), variables of weight 1 without bound, each"
echo "drawing 2^base + 2^(8 max/10) constraints), except that every draw counts"
echo "with coefficient 1 (ccsim's multiplicities are integers) and no concurrency"
echo "limit is applied (ccsim has none), so both solve every variable."
echo "\"first\" is the first solve, \"re-solve\" the mean of repeated full solves"
echo "(ccsim: \`net_resolve_all()\`; SimGrid: \`solve()\` after re-setting a bound,"
echo "without selective update, as maxmin_bench runs it).  \"speed-up\" is SimGrid's"
echo "re-solve time over ccsim's (above 1: ccsim faster).  \"max rel. diff\" compares"
echo "the two allocations through every constraint's usage (sum of coefficient x"
echo "rate): SimGrid's per-variable values are not exported."
echo
echo "| shape | constraints | variables | distinct elements | ccsim first (us) | ccsim re-solve (us) | SimGrid first (us) | SimGrid re-solve (us) | speed-up | max rel. diff | peak RSS ccsim / SimGrid (MB) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for shape in $shapes; do
    IFS=$'\t' read -r _ nc nv ne cf cr _ crss < <("$bench" maxmin "$shape" "$seed" "$tmpd/cc_$shape")
    if [ -n "$sg" ]; then
        IFS=$'\t' read -r _ _ _ _ sf sr _ srss < <("$sg" "$shape" "$seed" "$tmpd/sg_$shape")
        ratio=$(awk -v a="$sr" -v b="$cr" 'BEGIN { printf "%.2f", a / b }')
        diff=$(paste "$tmpd/cc_$shape" "$tmpd/sg_$shape" | awk '
            { d = $1 - $2; if (d < 0) d = -d; m = ($1 > $2 ? $1 : $2); if (m > 0 && d / m > x) x = d / m }
            END { printf "%.1e", x }')
    else
        sf=-; sr=-; ratio=-; diff=-; srss=-
    fi
    echo "| $shape | $nc | $nv | $ne | $cf | $cr | $sf | $sr | $ratio | $diff | $crss / $srss |"
done
if [ -z "$sg" ]; then
    echo
    echo "SimGrid comparison skipped: $sg_why."
fi
echo
echo "## Churn on a k=16 fat-tree"
echo
echo "Command: \`build-bench/tests/bench_net churn MEMBERS EVENTS $seed\`."
echo "k=16 fat-tree link set (1,024 hosts, 6,144 directed 100 Gb/s links), 64 ring"
echo "transfers of MEMBERS distinct random hosts (each hop a random ECMP path; the"
echo "ring is one transfer over the union of its hops' links), random priority"
echo "among 4 levels, size U[1,100] MB.  Each event is one completion, whose"
echo "on_done starts a new random ring: one end and one start, solved together in"
echo "one incremental solve.  Every solve is exact (no tolerance beyond"
echo "rel_eps = 1e-11)."
echo "\"mean re-solved\" is the number of transfers re-solved per solve, summed"
echo "over the levels re-solved."
echo
echo "| ring members | rings | events | CPU s | events/s | mean re-solved transfers | solves | rate changes per event | peak RSS (MB) |"
echo "|---|---|---|---|---|---|---|---|---|"
"$bench" churn 8 "$ev8" "$seed"
"$bench" churn 64 "$ev64" "$seed"
"$bench" churn 512 "$ev512" "$seed"
echo
echo "Event counts: $ev8 / $ev64 / $ev512 (set CHURN8_EVENTS, CHURN64_EVENTS,"
echo "CHURN512_EVENTS to change them)."
} > "$tmp"

if [ -f docs/performance-notes.md ]; then
    { echo; cat docs/performance-notes.md; } >> "$tmp"
fi
mv "$tmp" "$out"
rm -rf "$tmpd"
trap - EXIT
cat "$out"
