"""fixtures.py - result folders written by hand, with numbers chosen so
that every value a figure draws can be worked out in the test.

make_sweep(dir, points) writes a sweep folder: sweep.json (the swept keys
in the given order), summary.csv and runs/NAME/ with summary.csv,
jobs.csv, timeseries.csv, links.csv and run.json, in the columns ccsim
writes (columns.CONFIG and the results after them).  Each point is a dict
of swept values and `util` (gpu_util_cluster_frac); the rest follows:
allocated utilization = util / 0.5, the time series holds util at t0 and
util + 0.1 at t0 + 60, every job's slowdown is 1 + util, one skipped job
(ran 0, empty slowdown) per run, and links.csv has a tier `tor_agg` at
occupancy 10 * util and a tier `pcie` at exactly 0.
"""
import csv
import json
import os

import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ccsim.columns import CONFIG  # noqa: E402

RESULTS = ["jobs", "jobs_skipped", "jobs_placed_by_policy", "gpu_util_cluster_frac",
           "gpu_util_allocated_frac", "busy_gpu_s", "iterations", "mean_slowdown",
           "p99_slowdown", "jobs_at_risk", "jobs_slowed_by_others", "wall_s", "events",
           "peak_rss_bytes"]

DEFAULTS = dict(scenario="fx", topology="fat-tree:k=4", trace="t.json", scheduler="ecmp",
                seed=1, mode="window", sim_start_s=0, sim_end_s=120, placement="recorded",
                channels="auto", collective_model="ring", priority_levels=8, gpu="a100",
                alpha_us=5, buckets=1, jitter_sigma=0, time_scale=1, interval_s=60,
                steady="exact", fast_forward="true", scale_hosts="false",
                tor_oversub_ratio=1, agg_oversub_ratio=1, gpus_total=128)

SWEEP_COLUMN = {"sim.seed": "seed", "sim.channels": "channels", "sim.start_s": "sim_start_s",
                "sim.end_s": "sim_end_s", "sim.placement": "placement"}


def _write(path, header, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def _run(folder, conf, util, slowed=1):
    t0 = float(conf["sim_start_s"])
    summary = dict(conf, jobs=3, jobs_skipped=1, jobs_placed_by_policy=0,
                   gpu_util_cluster_frac=util, gpu_util_allocated_frac=util / 0.5,
                   busy_gpu_s=1, iterations=10, mean_slowdown=1 + util, p99_slowdown=1 + util,
                   jobs_at_risk=2, jobs_slowed_by_others=slowed, wall_s=0.1, events=5,
                   peak_rss_bytes=1)
    _write(os.path.join(folder, "summary.csv"), CONFIG + RESULTS,
           [[summary[c] for c in CONFIG + RESULTS]])
    _write(os.path.join(folder, "jobs.csv"), ["job_id", "gpus", "slowdown", "status", "ran"],
           [[f"j{k}", 8, 1 + util, "ran", 1] for k in range(3)] +
           [["skipped", 8, "", "skipped_window", 0]])
    _write(os.path.join(folder, "timeseries.csv"), ["t_s", "gpu_util_cluster_frac"],
           [[t0, util], [t0 + 60, util + 0.1]])
    _write(os.path.join(folder, "links.csv"),
           ["t_s", "tier", "links", "capacity_Gbps", "carried_bytes", "util_frac",
            "intensity_occupancy_gpus"],
           [[t0 + dt, tier, 4, 400, 0, 0, occ] for dt in (0, 60)
            for tier, occ in (("pcie", 0), ("tor_agg", 10 * util))])
    with open(os.path.join(folder, "run.json"), "w") as f:
        json.dump({"seed": int(conf["seed"]), "contention": {
            "jobs": 3, "jobs_at_risk": 2, "jobs_slowed_by_others": slowed}}, f)


def make_sweep(path, keys, points):
    """A sweep folder at path: keys are the swept keys in axis order
    ("scheduler", "topology", "sim.channels", ...), points dicts of their
    values (by key) and `util`."""
    cols = [SWEEP_COLUMN.get(k, k) for k in keys]
    os.makedirs(os.path.join(path, "runs"), exist_ok=True)
    with open(os.path.join(path, "sweep.json"), "w") as f:
        json.dump({"base": {}, "grid": {k: sorted({str(p[k]) for p in points}) for k in keys}}, f)
    rows = []
    for i, p in enumerate(points):
        name = f"run{i:03d}"
        conf = dict(DEFAULTS, **{c: p[k] for k, c in zip(keys, cols)})
        _run(os.path.join(path, "runs", name), conf, p["util"], p.get("slowed", 1))
        rows.append([name] + [conf[c] for c in cols] +
                    [conf[c] for c in CONFIG if c not in cols] + [p["util"]])
    _write(os.path.join(path, "summary.csv"),
           ["run"] + cols + [c for c in CONFIG if c not in cols] + ["gpu_util_cluster_frac"],
           rows)
    return path


def make_compare(path, runs):
    """A compare folder at path: runs maps scheduler -> (allocated
    utilization, jobs slowed by others); 10 jobs, 3 at risk in each."""
    rows = []
    for sched, (alloc, slowed) in runs.items():
        conf = dict(DEFAULTS, scheduler=sched)
        _run(os.path.join(path, sched), conf, alloc * 0.5, slowed)
        with open(os.path.join(path, sched, "run.json"), "w") as f:
            json.dump({"seed": 1, "contention": {"jobs": 10, "jobs_at_risk": 3,
                                                 "jobs_slowed_by_others": slowed}}, f)
        rows.append([conf[c] for c in CONFIG] + [alloc * 0.5, alloc])
    _write(os.path.join(path, "summary.csv"),
           CONFIG + ["gpu_util_cluster_frac", "gpu_util_allocated_frac"], rows)
    return path
