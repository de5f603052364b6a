#!/usr/bin/python3
"""validate-packet-compare.py - one case of the packet-level cross-check:
ccsim's run (a `ccsim export-packet` folder) against ccsim-packet's replay of
it in ns-3 (docs/validation.md, "Packet-level cross-check").

  validate-packet-compare.py EXPORT_DIR NS3_DIR [--case NAME] [--header]
                             [--extra NAME=VALUE]... [--max-iter-err F] [--max-util-err F]

Prints one CSV row (with --header, the header first):
  case, jobs, iter_err (the largest per-job error of the mean iteration
  time, signed, as a fraction), iter_err_mean (mean of |per-job error|),
  fct_p50_err, fct_p99_err (error of the median and 99th percentile of the
  transfers' completion times, nearest rank, over every transfer that
  ended), util_ccsim, util_ns3 (allocated GPU utilization), util_err,
  ccsim_wall_s, ns3_wall_s, ns3_cpu_s, drops, ecn_marks, then one column
  per --extra (the caller's: CPU seconds it measured, the routing...).
Errors are (ns-3 - ccsim) / ccsim.  With --max-iter-err / --max-util-err
it exits 1 when |iter_err| or |util_err| is larger (the test's check).
Standard library only.
"""
import argparse
import csv
import json
import math
import os
import sys

COLUMNS = ["case", "jobs", "iter_err", "iter_err_mean", "fct_p50_err", "fct_p99_err",
           "util_ccsim", "util_ns3", "util_err", "ccsim_wall_s", "ns3_wall_s", "ns3_cpu_s",
           "drops", "ecn_marks"]


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def pct(values, q):
    """Nearest-rank percentile q (0..100) of values (non-empty)."""
    v = sorted(values)
    return v[max(0, math.ceil(q / 100.0 * len(v)) - 1)]


def err(ns3, ref):
    return (ns3 - ref) / ref if ref else float("nan")


def compare(export_dir, ns3_dir, case):
    ccsim_jobs = {r["job_id"]: r for r in rows(os.path.join(export_dir, "jobs.csv"))}
    ns3_jobs = {r["job_id"]: r for r in rows(os.path.join(ns3_dir, "jobs.csv"))}
    errs = []
    for jid, r in ns3_jobs.items():
        a, b = ccsim_jobs[jid].get("mean_iter_s", ""), r["mean_iter_s"]
        if a and b:
            errs.append(err(float(b), float(a)))
        elif a or b:  # one simulator finished an iteration, the other none
            errs.append(float("inf"))
    worst = max(errs, key=abs) if errs else float("nan")
    fct_c = [float(r["fct_s"]) for r in rows(os.path.join(export_dir, "ccsim_transfers.csv"))]
    fct_n = [float(r["fct_s"]) for r in rows(os.path.join(ns3_dir, "transfers.csv"))]
    p50 = err(pct(fct_n, 50), pct(fct_c, 50)) if fct_c and fct_n else float("nan")
    p99 = err(pct(fct_n, 99), pct(fct_c, 99)) if fct_c and fct_n else float("nan")
    cs = rows(os.path.join(export_dir, "summary.csv"))[0]
    ns = rows(os.path.join(ns3_dir, "summary.csv"))[0]
    uc, un = float(cs["gpu_util_allocated_frac"]), float(ns["gpu_util_allocated_frac"])
    with open(os.path.join(export_dir, "run.json")) as f:
        wall = json.load(f)["wall_s"]
    return {"case": case, "jobs": len(ns3_jobs), "iter_err": worst,
            "iter_err_mean": sum(abs(e) for e in errs) / len(errs) if errs else float("nan"),
            "fct_p50_err": p50, "fct_p99_err": p99, "util_ccsim": uc, "util_ns3": un,
            "util_err": err(un, uc), "ccsim_wall_s": wall, "ns3_wall_s": float(ns["wall_s"]),
            "ns3_cpu_s": float(ns["cpu_s"]), "drops": int(ns["drops"]),
            "ecn_marks": int(ns["ecn_marks"])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("export_dir")
    ap.add_argument("ns3_dir")
    ap.add_argument("--case", default="case")
    ap.add_argument("--header", action="store_true")
    ap.add_argument("--extra", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--max-iter-err", type=float)
    ap.add_argument("--max-util-err", type=float)
    a = ap.parse_args()
    try:
        r = compare(a.export_dir, a.ns3_dir, a.case)
    except (OSError, KeyError, ValueError, IndexError) as e:
        print(f"validate-packet-compare: {e}", file=sys.stderr)
        return 1
    extra = [e.partition("=") for e in a.extra]
    w = csv.writer(sys.stdout, lineterminator="\n")
    if a.header:
        w.writerow(COLUMNS + [n for n, _, _ in extra])
    w.writerow([f"{r[c]:.6g}" if isinstance(r[c], float) else r[c] for c in COLUMNS] +
               [v for _, _, v in extra])
    bad = []
    if a.max_iter_err is not None and not abs(r["iter_err"]) <= a.max_iter_err:
        bad.append(f"iteration time error {r['iter_err']:+.2%} beyond {a.max_iter_err:.0%}")
    if a.max_util_err is not None and not abs(r["util_err"]) <= a.max_util_err:
        bad.append(f"GPU utilization error {r['util_err']:+.2%} beyond {a.max_util_err:.0%}")
    for b in bad:
        print(f"validate-packet-compare: {a.case}: {b}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
