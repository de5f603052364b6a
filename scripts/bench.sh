#!/usr/bin/env bash
# bench.sh - engine microbenchmarks: builds a release build in build-bench/,
# runs tests/bench_net (each case in its own process, so peak RSS is per
# case) and writes the figures to docs/performance.md.
# Usage: scripts/bench.sh
# Environment: SEED (default 1), CHURN8_EVENTS (100000), CHURN64_EVENTS
# (50000), CHURN512_EVENTS (10000) - the defaults keep the run near 4 minutes
# on a 2-core machine; set them to 100000 for the full-length churn runs
# (about 2 and 10 minutes more).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
ccsim_install_packages "${CCSIM_PACKAGES[@]}"
scripts/build.sh build-bench --buildtype=release -Dtests=true
bench=build-bench/tests/bench_net
seed=${SEED:-1}
ev8=${CHURN8_EVENTS:-100000}
ev64=${CHURN64_EVENTS:-50000}
ev512=${CHURN512_EVENTS:-10000}

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
load=$(cut -d' ' -f1-3 /proc/loadavg)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
out=docs/performance.md
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

{
echo "# Engine performance"
echo
echo "Written by \`scripts/bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), git $commit."
echo "Machine: $(nproc) CPUs, $cpu; load average at start $load."
echo "Build: \`meson setup build-bench --buildtype=release\` (gcc -O3), one thread."
echo "Times are CPU time of the process (\`CLOCK_PROCESS_CPUTIME_ID\`), not wall"
echo "time, because the build machine is shared; peak RSS is \`getrusage()\`."
echo
echo "## Full solves on SimGrid maxmin_bench shapes"
echo
echo "Command: \`build-bench/tests/bench_net maxmin SHAPE all|active $seed\`."
echo "Random bipartite systems built as SimGrid's \`maxmin_bench\` does (docs/engine.md"
echo "and tests/bench_net.c): constraints = links with capacity U(0,10), variables ="
echo "transfers of weight 1 that each draw (1<<b) + (1<<(8m/10)) random links; a link"
echo "drawn twice gets multiplicity 2 (SimGrid draws real coefficients U[0,1.5))."
echo "\"all\" keeps every variable; \"SimGrid-enabled count\" keeps only as many as"
echo "SimGrid's concurrency limits leave enabled (7.7 / 46 / 768 / 7,592), which is"
echo "the system SimGrid actually solves.  A solve is \`net_resolve_all()\`: every"
echo "level of every transfer from scratch."
echo
echo "| shape | variables kept | constraints | variables | distinct elements | first solve (us) | re-solve (us) | solves/s | peak RSS (MB) |"
echo "|---|---|---|---|---|---|---|---|---|"
for shape in small medium big huge; do
    for mode in all active; do
        "$bench" maxmin "$shape" "$mode" "$seed"
    done
done
echo
echo "For comparison, SimGrid 3.32 re-solving the same shapes (its enabled"
echo "variables only; measured on another 2-core machine): small 0.33 us,"
echo "medium 9.5 us, big 1.7 ms"
echo "(first solve ~10 ms), huge 0.6 s."
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
trap - EXIT
cat "$out"
