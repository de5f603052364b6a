#!/usr/bin/env python3
"""check-steady-compare.py - one run with and without the fast-forward.

Usage: scripts/check-steady-compare.py DIR_FF DIR_OFF

Compares summary.csv, jobs.csv, timeseries.csv and links.csv of the two
result folders (scripts/check-steady.sh).  Fails (exit 1) when a GPU
utilization (gpu_util_cluster_frac, gpu_util_allocated_frac; summary and
every interval) differs by more than 1e-6 absolute, or a job's iterations
by more than 1.  Prints one line: OK or FAIL, the largest utilization and
iteration differences, and the largest relative difference of any other
number with its file and column.  wall_s, events, peak_rss_bytes and fast_forward (the option) ignored.
"""
import csv, math, os, sys

UTIL = {"gpu_util_cluster_frac", "gpu_util_allocated_frac"}
SKIP = {"wall_s", "events", "peak_rss_bytes", "fast_forward"}  # fast_forward: the option itself

def rows(d, f):
    with open(os.path.join(d, f)) as fh:
        return list(csv.reader(fh))

def num(x):
    try:
        return float(x)
    except ValueError:
        return None

def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a, b = sys.argv[1:]
    util_max, iter_max, other = 0.0, 0, (0.0, "")
    bad = []
    for f in ["summary.csv", "jobs.csv", "timeseries.csv", "links.csv"]:
        ra, rb = rows(a, f), rows(b, f)
        if len(ra) != len(rb) or ra[0] != rb[0]:
            bad.append(f"{f}: {len(ra)} vs {len(rb)} rows")
            continue
        hdr = ra[0]
        for x, y in zip(ra[1:], rb[1:]):
            for k, (u, v) in enumerate(zip(x, y)):
                col = hdr[k]
                if col in SKIP or u == v:
                    continue
                fu, fv = num(u), num(v)
                if fu is None or fv is None:
                    bad.append(f"{f} {col}: {u!r} vs {v!r}")
                    continue
                if math.isnan(fu) and math.isnan(fv):
                    continue
                d = abs(fu - fv)
                if col in UTIL:
                    util_max = max(util_max, d)
                elif f == "jobs.csv" and col == "iterations":
                    iter_max = max(iter_max, int(d))
                else:
                    rel = d / max(abs(fu), abs(fv), 1e-300)
                    if rel > other[0]:
                        other = (rel, f"{f}:{col}")
    if util_max > 1e-6:
        bad.append(f"utilization differs by {util_max:.2e}")
    if iter_max > 1:
        bad.append(f"iterations differ by {iter_max}")
    head = "FAIL " + "; ".join(bad[:3]) if bad else "OK"
    print(f"{head}  util {util_max:.1e}  iterations {iter_max}  "
          f"other {other[0]:.1e} {other[1]}".rstrip())
    sys.exit(1 if bad else 0)

main()
