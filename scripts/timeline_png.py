#!/usr/bin/env python3
"""timeline_png.py - draw a ccsim timeline (trace-event JSON) as a PNG.

Usage: scripts/timeline_png.py TIMELINE.json OUT.png [--title TEXT]

For machines without a browser: the same tracks Perfetto shows, drawn with
matplotlib.  Top: per job, its compute / optimizer slices and its
communication slices.  Below: each job's network rate (the "network Gbps"
counter: transfers that leave a host) and, in a panel of its own when any
job has one, its NVLink rate (the "NVLink Gbps" counter: transfers within
one host), so the two scales never mix.  Not here: recording the timeline
(ccsim run --timeline).
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
    names, slices, rates = {}, {}, {"network Gbps": {}, "NVLink Gbps": {}}
    for e in events:
        pid = e.get("pid")
        if e["ph"] == "M" and e["name"] == "process_name":
            names[pid] = e["args"]["name"]
        elif e["ph"] == "X":
            slices.setdefault((pid, e["tid"]), []).append(
                (e["name"], e["ts"] / 1e6, e["dur"] / 1e6))
        elif e["ph"] == "C" and e["name"] in rates:
            rates[e["name"]].setdefault(pid, []).append((e["ts"] / 1e6, e["args"]["Gbps"]))
    return names, slices, rates


def draw(names, slices, rates, title=""):
    """The figure of a loaded timeline: slices, then one rate panel per
    counter present (network, NVLink)."""
    jobs = sorted(p for p in names if p != 0)
    counters = [c for c in ("network Gbps", "NVLink Gbps") if rates[c]] or ["network Gbps"]
    fig, axes = plt.subplots(1 + len(counters), 1, figsize=(10, 2.2 + 1.1 * len(jobs)
                                                             + 1.3 * (len(counters) - 1)),
                             sharex=True, squeeze=False,
                             gridspec_kw={"height_ratios": [len(jobs)] + [1.2] * len(counters)})
    top = axes[0, 0]
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
    if title:
        top.set_title(title)
    for counter, bot in zip(counters, axes[1:, 0]):
        for i, pid in enumerate(jobs):
            # several samples at one instant: the last one holds (stable sort)
            pts = sorted(rates[counter].get(pid, []), key=lambda p: p[0])
            if pts:
                bot.step([p[0] for p in pts], [p[1] for p in pts], where="post",
                         linestyle=["-", "--", ":", "-."][i % 4],
                         label=names[pid].split(":")[0])
        what = "network rate" if counter == "network Gbps" else "NVLink rate\n(in a host)"
        bot.set_ylabel(f"{what}\n(Gbps)")
        bot.set_ylim(bottom=0)
        bot.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
        bot.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("simulated time (s)")
    fig.tight_layout()
    return fig


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("timeline")
    ap.add_argument("out")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    names, slices, rates = load(a.timeline)
    if not any(p != 0 for p in names):
        sys.exit("timeline_png: no job in %s" % a.timeline)
    draw(names, slices, rates, a.title).savefig(a.out, dpi=110)


if __name__ == "__main__":
    main()
