#!/usr/bin/env python3
"""crux_table.py - our figure-23 numbers next to the Crux paper's.

Reads the summary.csv of the reproduce-crux sweep (one row per topology and
scheduler) and prints a Markdown table: allocated and cluster GPU
utilization, mean slowdown, the gain of every scheduler over ecmp, and
Crux's gain over each of the paper's baselines (Sincronia, TACCL*, CASSINI)
with the range the paper reports.  With --docs FILE the table also replaces
the block between the "generated" markers of FILE.

Usage: crux_table.py SUMMARY.csv [--trace DIR] [--docs FILE]
"""
import argparse
import csv
import os
import sys

# Crux, SIGCOMM'24, §6.3: Crux's GPU-utilization gain over the baselines.
PAPER_GAIN = {"crux-clos2": (13, 23), "crux-double-sided": (4, 7)}
BASELINES = ("sincronia", "taccl", "cassini")
BEGIN = "<!-- BEGIN reproduce-crux table (scripts/reproduce-crux.sh --docs) -->"
END = "<!-- END reproduce-crux table -->"


def read_rows(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"crux_table.py: {path}: no runs")
    for col in ("topology", "scheduler", "gpu_util_allocated_frac"):
        if col not in rows[0]:
            sys.exit(f"crux_table.py: {path}: no column {col}")
    return rows


def gain(a, b):
    """Percent gain of a over b; |g| < 0.005 prints as +0.00, not -0.00."""
    if b <= 0:
        return float("nan")
    g = 100.0 * (a / b - 1.0)
    return 0.0 if abs(g) < 0.005 else g


def topology_table(spec, rows):
    topo = spec.split(":", 1)[0]
    util = {r["scheduler"]: float(r["gpu_util_allocated_frac"]) for r in rows}
    out = [f"### {topo}", "", f"`{spec}`", "",
           "| scheduler | allocated util | cluster util | mean slowdown | gain over ecmp |",
           "|---|---|---|---|---|"]
    for r in rows:
        s = r["scheduler"]
        g = f"{gain(util[s], util['ecmp']):+.2f}%" if "ecmp" in util else "-"
        out.append(f"| {s} | {float(r['gpu_util_allocated_frac']):.4f} | "
                   f"{float(r['gpu_util_cluster_frac']):.4f} | "
                   f"{float(r['mean_slowdown']):.4f} | {g} |")
    out.append("")
    if "crux" in util:
        lo, hi = PAPER_GAIN.get(topo, (None, None))
        paper = f"+{lo}% to +{hi}%" if lo is not None else "not reported"
        gains = [f"{b} {gain(util['crux'], util[b]):+.2f}%" for b in BASELINES if b in util]
        out.append(f"Crux over the baselines: {', '.join(gains) or '-'} "
                   f"(paper: {paper}).")
        order = [s for s in ("crux-pa", "crux-ps-pa", "crux") if s in util]
        if len(order) > 1:
            out.append("Crux variants: " + ", ".join(f"{s} {util[s]:.4f}" for s in order)
                       + " (paper: Crux-PA < Crux-PS-PA ≈ Crux).")
        out.append("")
    return out


def table(rows, trace):
    first = rows[0]
    lines = [f"Trace `{trace}`" if trace else "Trace: see the sweep file",
             f"window [{first.get('sim_start_s', '?')}, {first.get('sim_end_s', '?')}) s, "
             f"{first.get('jobs', '?')} jobs run; K = 8 priority levels.", ""]
    for topo in dict.fromkeys(r["topology"] for r in rows):
        lines += topology_table(topo, [r for r in rows if r["topology"] == topo])
    return "\n".join(lines)


def splice(path, text):
    with open(path) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        sys.exit(f"crux_table.py: {path}: no generated-table markers")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(head + BEGIN + "\n" + text + "\n" + END + tail)
    os.replace(tmp, path)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("summary")
    p.add_argument("--trace", default="")
    p.add_argument("--docs", help="Markdown file whose generated block is replaced")
    a = p.parse_args()
    text = table(read_rows(a.summary), a.trace)
    print(text)
    if a.docs:
        splice(a.docs, text)


if __name__ == "__main__":
    main()
