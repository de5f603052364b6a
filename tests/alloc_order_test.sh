#!/usr/bin/env bash
# alloc_order_test.sh - a replay's outputs are a function of its inputs and
# seed, not of where malloc puts things: the same short window of the
# bundled default (trace seconds 56000-62000: 100 min, 28 jobs, about
# 0.6 s a run) under glibc's malloc and under malloc_reverse.so (an
# LD_PRELOAD allocator that hands out decreasing addresses and reuses
# freed blocks LIFO) must give byte-identical jobs.csv, links.csv and
# timeseries.csv, for ecmp and for the schedulers that keep hash tables
# and caches (crux, sincronia, cassini).  Sorting the running jobs by
# address instead of by arrival makes crux's jobs.csv and links.csv differ
# here; glibc's own tunables (tcache_count=0, mxfast=0, mmap_threshold,
# MALLOC_TOP_PAD_) keep glibc's increasing order and do not.
# Not built under sanitizers (their runtime must be the first library).
# Usage: tests/alloc_order_test.sh CCSIM MALLOC_REVERSE_SO
set -uo pipefail
ccsim=$(realpath "$1")
shim=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
window=(--start 56000 --end 62000)
failures=0
for sched in ecmp crux sincronia cassini; do
    if ! "$ccsim" run -q --sched "$sched" "${window[@]}" -o "$tmp/$sched-glibc" >/dev/null ||
        ! LD_PRELOAD="$shim" "$ccsim" run -q --sched "$sched" "${window[@]}" \
            -o "$tmp/$sched-reverse" >/dev/null; then
        echo "FAIL - $sched: a run failed"
        failures=$((failures + 1))
        continue
    fi
    for f in jobs.csv links.csv timeseries.csv; do
        if cmp "$tmp/$sched-glibc/$f" "$tmp/$sched-reverse/$f"; then
            echo "ok - $sched $f: identical under both allocators"
        else
            echo "FAIL - $sched $f differs with the heap's address order reversed"
            failures=$((failures + 1))
        fi
    done
done
exit $((failures > 0))
