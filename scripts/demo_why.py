#!/usr/bin/env python3
# demo_why.py - the sentence under the demo's table (scripts/run.sh): why the
# winner wins, from the runs' own numbers (summary.csv, each run.json's
# "contention" block).  Not here: running anything.
# Usage: scripts/demo_why.py RESULTS_DIR  (a `ccsim compare` folder holding
# ecmp, crux-pa and ideal among its schedulers)
import csv
import json
import os
import sys


def main(out):
    rows = {r["scheduler"]: r for r in csv.DictReader(open(os.path.join(out, "summary.csv")))}
    util = {s: float(r["gpu_util_allocated_frac"]) for s, r in rows.items()}
    risk = {s: json.load(open(os.path.join(out, s, "run.json")))["contention"] for s in rows}
    real = {s: u for s, u in util.items() if s != "ideal"}
    best = max(real.values())
    tops = [s for s in real if real[s] >= best - 1e-6]
    win = tops[0]

    def gain(s):
        return 100 * (util[s] / util["ecmp"] - 1)

    who = win + " wins" if len(tops) == 1 else " and ".join(tops) + " tie at the top"
    e = risk["ecmp"]
    parts = [f"{who} (+{gain(win):.1f}% allocated GPU utilization over ecmp; ideal "
             f"{util['ideal']:.4f}): under ecmp {e['jobs_at_risk']} of {e['jobs']} jobs "
             f"share a host or a network link with another communicating job and "
             f"{e['jobs_slowed_by_others']} run more than 1% slower than alone on their own paths"]
    pa = gain("crux-pa")
    if e["jobs_slowed_by_others"] == 0:
        parts.append("; no job is slowed by another, so what separates the schedulers is each "
                     "job's own ECMP collisions, which only path selection undoes")
    elif pa > 0.5:
        parts.append(f"; priorities alone (crux-pa, the same paths) recover {pa:+.1f}%, since the "
                     "most GPU-intensive job goes first on a shared uplink, which only contention "
                     "between jobs can reward")
    else:
        parts.append(f"; priorities alone (crux-pa) change little ({pa:+.1f}%)")
    rest = gain(win) - max(pa, 0)
    if win != "crux-pa" and rest > 0.5:
        parts.append(f", and choosing a path for every NCCL channel flow adds the other "
                     f"{rest:.1f} points by moving flows off the uplinks ECMP hashing stacked")
    left = risk[win]["jobs_slowed_by_others"]
    parts.append(f"; under {win} {left} job{'s' if left != 1 else ''} "
                 f"{'are' if left != 1 else 'is'} slowed by another.")
    print("\n" + "".join(parts))


if __name__ == "__main__":
    main(sys.argv[1])
