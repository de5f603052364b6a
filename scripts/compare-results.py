#!/usr/bin/env python3
"""compare-results.py - compare two ccsim result folders field by field.

Usage: scripts/compare-results.py DIR_A DIR_B [REL_TOL]
       scripts/compare-results.py --exact DIR_A DIR_B
       scripts/compare-results.py --approx DIR_APPROX DIR_EXACT

Reads summary.csv, jobs.csv, timeseries.csv and links.csv of both folders
(same rows expected) and reports, per file and column (per tier for
links.csv), how many numbers differ by more than REL_TOL relative (default
1e-9) and more than 1e-9 absolute, with the worst case.  wall_s, events and
peak_rss_bytes are ignored.  Prints OK and exits 0 when nothing differs.
Used to check that the fast-forward (docs/engine.md section 5a) changes no
result: run once with and once with --no-fast-forward.

--exact: the two folders hold the same run made by two builds (a change
that must not move any output, scripts/check-steady.sh --against): every
output file (the four CSVs, run.json, and any other file both hold) must
be byte for byte the same, but for what measures the machine rather than
the run: the wall_s and peak_rss_bytes columns of summary.csv and the
wall_s, peak_rss_bytes, version and git_commit fields of run.json.  Events
count as results here.  Prints OK, or each file that differs with its
first differing line, and exits 1.

--approx: DIR_APPROX holds a run made with --steady approx, DIR_EXACT the
same run on the event path (--steady exact, the default): how far the
approximation is from it against the bounds the approximate run reports
(docs/engine.md section 5d).  The cluster utilization must be within
steady_approx_util_bound (plus 1e-6, the exact mode's own tolerance) and
every job's iterations within steady_approx_iteration_bound (the largest
over the run's jobs, at least 1).  Prints both, the jobs that differ most,
and OK, or what is beyond its bound, and exits 1.  The bounds are stated
ones, not proofs: this is how to check them on a window of your own.
"""
import csv, sys, math, os, json

MACHINE = {"wall_s", "peak_rss_bytes"}
BUILD = {"version", "git_commit"}


def strip_json(x):
    if isinstance(x, dict):
        return {k: strip_json(v) for k, v in x.items() if k not in MACHINE | BUILD}
    if isinstance(x, list):
        return [strip_json(v) for v in x]
    return x


def exact_lines(path):
    """The file's lines, machine-dependent fields blanked."""
    name = os.path.basename(path)
    if name == "run.json":
        with open(path) as fh:
            return json.dumps(strip_json(json.load(fh)), indent=1, sort_keys=True).splitlines()
    with open(path, newline="") as fh:
        if name == "summary.csv":
            rows = list(csv.reader(fh))
            drop = [k for k, h in enumerate(rows[0]) if h in MACHINE] if rows else []
            return [",".join(v for k, v in enumerate(r) if k not in drop) for r in rows]
        return fh.read().splitlines()


def exact(a, b):
    out = []
    fa, fb = set(os.listdir(a)), set(os.listdir(b))
    for f in sorted(fa ^ fb):
        out.append(f"{f}: only in {a if f in fa else b}")
    for f in sorted(fa & fb):
        if not os.path.isfile(os.path.join(a, f)):
            continue
        la, lb = exact_lines(os.path.join(a, f)), exact_lines(os.path.join(b, f))
        if la == lb:
            continue
        i = next((k for k, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
        show = lambda l: l[i][:200] if i < len(l) else "(end of file)"
        out.append(f"{f}: line {i + 1}: {show(la)} | {show(lb)}")
    print("\n".join(out) if out else "OK")
    return 1 if out else 0


def load_run(d):
    """run.json, the summary.csv row and the jobs.csv rows of result folder d."""
    try:
        with open(os.path.join(d, "run.json")) as fh:
            run = json.load(fh)
        with open(os.path.join(d, "summary.csv"), newline="") as fh:
            summary = next(csv.DictReader(fh))
        with open(os.path.join(d, "jobs.csv"), newline="") as fh:
            jobs = list(csv.DictReader(fh))
    except (OSError, ValueError, StopIteration) as err:
        sys.exit(f"compare-results.py: {d}: not a result folder ({err or 'empty summary.csv'})")
    return run, summary, jobs


# What two folders of the same run share (the scenario's and the trace's
# names may differ: a copy of a scenario file that sets sim.steady).
SAME_RUN = ["topology", "scheduler", "seed", "sim_start_s", "sim_end_s"]
SAME_JOB = ["job_id", "gpus", "start_s", "end_s"]


def approx(a, e):
    ra, sa, ja = load_run(a)
    re_, se, je = load_run(e)
    if sa["steady"] != "approx":
        sys.exit(f"compare-results.py: {a}: not a --steady approx run (steady {sa['steady']})")
    if se["steady"] == "approx":
        sys.exit(f"compare-results.py: {e}: a --steady approx run; the reference must be the event path")
    differ = [k for k in SAME_RUN if sa[k] != se[k]]
    jobs = lambda rows: [[j[k] for k in SAME_JOB] for j in rows]
    if differ or jobs(ja) != jobs(je):
        sys.exit(f"compare-results.py: {a} and {e} are not the same run ({', '.join(differ) or 'jobs'} differ)")
    out = []
    ubound = ra["steady_approx_util_bound"]
    du = ra["summary"]["gpu_util_cluster_frac"] - re_["summary"]["gpu_util_cluster_frac"]
    print(f"cluster utilization: approx - exact = {du:.3g}, bound {ubound:.3g}")
    if abs(du) > ubound + 1e-6:
        out.append(f"cluster utilization {du:.3g} off, beyond its bound {ubound:.3g}")
    dalloc = ra["summary"]["gpu_util_allocated_frac"] - re_["summary"]["gpu_util_allocated_frac"]
    print(f"allocated utilization: approx - exact = {dalloc:.3g} (no bound of its own)")
    ibound = max(1.0, ra["steady_approx_iteration_bound"])
    rows = [(int(x["iterations"]) - int(y["iterations"]), x, y) for x, y in zip(ja, je)]
    rows = sorted((r for r in rows if r[0]), key=lambda r: -abs(r[0]))
    beyond = [r for r in rows if abs(r[0]) > ibound]
    print(f"jobs: {len(ja)}, {len(rows)} with other iterations; per-job bound {ibound:.4g}, "
          f"{ra['steady_approx_jumps']} jumps")
    for d, x, y in rows[:10]:
        mark = "  beyond" if abs(d) > ibound else ""
        print(f"  {x['job_id']} ({x['model']}): {x['iterations']} against {y['iterations']} ({d:+d}){mark}")
    for d, x, y in beyond:
        out.append(f"job {x['job_id']}: {x['iterations']} iterations against {y['iterations']}, "
                   f"beyond the bound {ibound:.4g}")
    print("\n".join(out) if out else "OK")
    return 1 if out else 0


if len(sys.argv) == 4 and sys.argv[1] == "--exact":
    sys.exit(exact(sys.argv[2], sys.argv[3]))
if len(sys.argv) == 4 and sys.argv[1] == "--approx":
    sys.exit(approx(sys.argv[2], sys.argv[3]))
if len(sys.argv) < 3 or sys.argv[1].startswith("-"):
    sys.exit(__doc__)
a, b = sys.argv[1], sys.argv[2]
tol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-9
skip = {"wall_s", "events", "peak_rss_bytes"}
out=[]
for f in ["summary.csv", "jobs.csv", "timeseries.csv", "links.csv"]:
    ra = list(csv.reader(open(os.path.join(a, f)))); rb = list(csv.reader(open(os.path.join(b, f))))
    if len(ra)!=len(rb): out.append(f"{f}: rows {len(ra)} vs {len(rb)}"); continue
    hdr = ra[0]; worst={}
    for i,(x,y) in enumerate(zip(ra[1:],rb[1:])):
        tier = x[1] if f=="links.csv" else ""
        for k,(u,v) in enumerate(zip(x,y)):
            if hdr[k] in skip or u==v: continue
            try: fu,fv=float(u),float(v)
            except: out.append(f"{f} {i} {hdr[k]} {u} {v}"); continue
            if math.isnan(fu) and math.isnan(fv): continue
            d=abs(fu-fv)/max(abs(fu),abs(fv),1e-300)
            if abs(fu-fv) <= 1e-9: continue
            key=(tier+" "+hdr[k]).strip()
            w=worst.setdefault(key,[0,0,None])
            if d>tol: w[1]+=1
            if d>w[0]: w[0]=d; w[2]=(i,u,v)
    for k,w in worst.items():
        if w[1]: out.append(f"{f} {k}: {w[1]} > {tol:g}, max {w[0]:.2e} at row {w[2][0] + 1}: {w[2][1]} vs {w[2][2]}")
print("\n".join(out) if out else "OK")
sys.exit(1 if out else 0)
