#!/usr/bin/env python3
"""compare-results.py - compare two ccsim result folders field by field.

Usage: scripts/compare-results.py DIR_A DIR_B [REL_TOL]
       scripts/compare-results.py --exact DIR_A DIR_B

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


if len(sys.argv) == 4 and sys.argv[1] == "--exact":
    sys.exit(exact(sys.argv[2], sys.argv[3]))
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
