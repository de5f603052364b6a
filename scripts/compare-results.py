#!/usr/bin/env python3
"""compare-results.py - compare two ccsim result folders field by field.

Usage: scripts/compare-results.py DIR_A DIR_B [REL_TOL]

Reads summary.csv, jobs.csv, timeseries.csv and links.csv of both folders
(same rows expected) and reports, per file and column (per tier for
links.csv), how many numbers differ by more than REL_TOL relative (default
1e-9) and more than 1e-9 absolute, with the worst case.  wall_s, events and
peak_rss_bytes are ignored.  Prints OK and exits 0 when nothing differs.
Used to check that the fast-forward (docs/engine.md section 5a) changes no
result: run once with and once with --no-fast-forward.
"""
import csv, sys, math, os
if len(sys.argv) < 3:
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
