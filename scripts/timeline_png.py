#!/usr/bin/env python3
"""timeline_png.py - draw a ccsim timeline (trace-event JSON) as a PNG.

Usage: scripts/timeline_png.py TIMELINE.json OUT.png [--title TEXT]

For machines without a browser: the same tracks Perfetto shows, drawn with
matplotlib.  Top: per job, its compute / optimizer slices and its
communication slices.  Bottom: each job's network rate (the "network Gbps"
counter).  Not here: recording the timeline (ccsim run --timeline).
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLOURS = {"compute": "#4C72B0", "optimizer": "#8172B2", "communication": "#DD8452"}


def load(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    names, slices, rates = {}, {}, {}
    for e in events:
        pid = e.get("pid")
        if e["ph"] == "M" and e["name"] == "process_name":
            names[pid] = e["args"]["name"]
        elif e["ph"] == "X":
            slices.setdefault((pid, e["tid"]), []).append(
                (e["name"], e["ts"] / 1e6, e["dur"] / 1e6))
        elif e["ph"] == "C" and e["name"] == "network Gbps":
            rates.setdefault(pid, []).append((e["ts"] / 1e6, e["args"]["Gbps"]))
    return names, slices, rates


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("timeline")
    ap.add_argument("out")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    names, slices, rates = load(a.timeline)
    jobs = sorted(p for p in names if p != 0)
    if not jobs:
        sys.exit("timeline_png: no job in %s" % a.timeline)
    fig, (top, bot) = plt.subplots(2, 1, figsize=(10, 2.2 + 1.1 * len(jobs)), sharex=True,
                                   gridspec_kw={"height_ratios": [len(jobs), 1.2]})
    labels, y = [], 0
    for pid in jobs:
        for tid, what in ((2, "communication"), (1, "GPU")):
            for name, t0, dur in slices.get((pid, tid), []):
                top.broken_barh([(t0, dur)], (y + 0.1, 0.8), color=COLOURS.get(name, "grey"),
                                edgecolor="black", linewidth=0.5)
            labels.append("%s: %s" % (names[pid].split(":")[0], what))
            y += 1
    top.set_yticks([i + 0.5 for i in range(y)])
    top.set_yticklabels(labels)
    top.invert_yaxis()
    seen = [n for n in COLOURS if any(s[0] == n for v in slices.values() for s in v)]
    top.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=COLOURS[n]) for n in seen],
               labels=seen, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    if a.title:
        top.set_title(a.title)
    for i, pid in enumerate(jobs):
        # several samples at one instant: the last one holds (stable sort)
        pts = sorted(rates.get(pid, []), key=lambda p: p[0])
        if pts:
            bot.step([p[0] for p in pts], [p[1] for p in pts], where="post",
                     linestyle=["-", "--", ":", "-."][i % 4], label=names[pid].split(":")[0])
    bot.set_ylabel("network rate\n(Gbps)")
    bot.set_xlabel("simulated time (s)")
    bot.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    bot.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)


if __name__ == "__main__":
    main()
