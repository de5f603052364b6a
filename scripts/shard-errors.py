#!/usr/bin/python3
"""shard-errors.py - how far a run split in time lies from the same run
unsplit (docs/cluster.md, "Long replays split in time").

Usage: scripts/shard-errors.py UNSPLIT_DIR SPLIT_DIR

Prints one line: cluster and allocated GPU utilization of both and the
difference (split minus unsplit), total iterations, and the absolute error
of each job's slowdown (max with the job, and mean) over the jobs that did
an iteration in both runs.  Reads summary.csv and jobs.csv (plain or .gz).
"""
import csv
import gzip
import os
import sys


def rows(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        path += ".gz"
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        return list(csv.DictReader(f))


def main(unsplit, split):
    su, ss = rows(unsplit, "summary.csv")[0], rows(split, "summary.csv")[0]
    ju = {r["job_id"]: r for r in rows(unsplit, "jobs.csv")}
    js = {r["job_id"]: r for r in rows(split, "jobs.csv")}
    errors = []
    for job, a in ju.items():
        b = js.get(job)
        if b and a["slowdown"] and b["slowdown"]:
            errors.append((abs(float(b["slowdown"]) - float(a["slowdown"])), job))
    errors.sort(reverse=True)
    cu, cs = float(su["gpu_util_cluster_frac"]), float(ss["gpu_util_cluster_frac"])
    au, as_ = float(su["gpu_util_allocated_frac"]), float(ss["gpu_util_allocated_frac"])
    worst = f"{errors[0][0]:.2e} ({errors[0][1]})" if errors else "-"
    mean = sum(e for e, _ in errors) / len(errors) if errors else float("nan")
    print(f"{split}: cluster utilization {cu:.6f} -> {cs:.6f} ({cs - cu:+.2e}, "
          f"relative {(cs - cu) / cu:+.2e}); allocated {au:.6f} -> {as_:.6f} "
          f"({as_ - au:+.2e}); iterations {su['iterations']} -> {ss['iterations']}; "
          f"slowdown error max {worst}, mean {mean:.2e} over {len(errors)} jobs")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    main(sys.argv[1], sys.argv[2])
