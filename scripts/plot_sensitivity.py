#!/usr/bin/python3
"""plot_sensitivity.py - the Crux sensitivity figure and tables from a sweep.

Usage: scripts/plot_sensitivity.py SWEEP_DIR [--out FIG.png] [--docs FILE]

SWEEP_DIR is the output folder of `ccsim sweep` on a sweep shaped like
examples/sweep-sensitivity.json: a `scheduler` axis and, zipped, the
`topology` (crux-clos2, with or without `oversub=N`), `sim.channels` and
`sim.placement`.  Its summary.csv splits into two panels:

  network    the runs placed by `locality`: allocated GPU utilization
             against the NCCL channel count, one plot per oversubscription
             (the topology's `oversub=`, 1 when absent), a line per scheduler
  placement  the runs at oversub 1 with the channel count the other
             policies were run with: one group of bars per placement policy

Writes the figure (PNG, default SWEEP_DIR/figures/crux-sensitivity.png) and
prints both tables in Markdown (values from summary.csv; jobs at risk and
slowed by others from the ecmp runs' run.json).  With --docs FILE the tables
also replace the block between FILE's crux-sensitivity markers.
The standard library, matplotlib and the ccsim package (python/ccsim: labels,
styles) are used.
"""
import argparse
import csv
import json
import math
import os
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from ccsim.columns import label  # noqa: E402  (the ccsim package: labels, styles)
from ccsim.figures import plt, style  # noqa: E402


def read_csv(path):
    """Rows of a CSV file as dicts, or None when it does not exist."""
    if not os.path.isfile(path):
        return None
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(value):
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def ordered(values, first="ecmp"):
    """Unique values in order of appearance, the baseline first."""
    out = list(OrderedDict.fromkeys(values))
    if first in out:
        out.remove(first)
        out.insert(0, first)
    return out

METRIC = "gpu_util_allocated_frac"
BEGIN = "<!-- BEGIN crux-sensitivity table (scripts/plot_sensitivity.py --docs) -->"
END = "<!-- END crux-sensitivity table -->"
NETWORK_PLACEMENT = "locality"


def fail(msg):
    print(f"plot_sensitivity: {msg}", file=sys.stderr)
    sys.exit(1)


def oversub_of(topology):
    """The oversub= parameter of a topology spec, 1 when absent."""
    _, _, params = topology.partition(":")
    for p in params.split(","):
        k, _, v = p.partition("=")
        if k == "oversub":
            return float(v)
    return 1.0


class Point:
    """One finished run of the sweep: its settings and results."""

    def __init__(self, row, folder):
        self.sched = row["scheduler"]
        self.topology = row["topology"]
        self.oversub = oversub_of(self.topology)
        self.channels = row["channels"]
        self.placement = row["placement"]
        self.util = num(row.get(METRIC))
        self.folder = folder

    def contention(self):
        """(jobs, at risk, slowed by others) from run.json, or None."""
        try:
            with open(os.path.join(self.folder, "run.json")) as f:
                c = json.load(f)["contention"]
            return c["jobs"], c["jobs_at_risk"], c["jobs_slowed_by_others"]
        except (OSError, ValueError, KeyError, TypeError):
            return None


def load(sweep_dir):
    rows = read_csv(os.path.join(sweep_dir, "summary.csv"))
    if not rows:
        fail(f"{sweep_dir}: no summary.csv with runs (run `ccsim sweep` first)")
    for col in ("scheduler", "topology", "channels", "placement", METRIC):
        if col not in rows[0]:
            fail(f"{sweep_dir}/summary.csv: no column '{col}' (not a sensitivity sweep)")
    points = [Point(r, os.path.join(sweep_dir, "runs", r["run"])) for r in rows]
    return [p for p in points if p.util is not None]


def split(points):
    """(network points, placement points, the placement panel's channels)."""
    network = [p for p in points if p.placement == NETWORK_PLACEMENT
               and "hosts_from=" not in p.topology]
    others = {p.channels for p in points if p.placement != NETWORK_PLACEMENT}
    if len(others) > 1:
        fail(f"placement runs with several channel counts ({', '.join(sorted(others))})")
    chan = others.pop() if others else None
    placement = [p for p in points if chan is not None and p.oversub == 1
                 and p.channels == chan]
    return network, placement, chan


def gain(a, b):
    if a is None or not b:
        return ""
    g = 100.0 * (a / b - 1.0)
    return f"{0.0 if abs(g) < 0.005 else g:+.2f}%"


def cell(v):
    return "" if v is None else f"{v:.4f}"


def oversub_name(x):
    return f"{x:g}:1"


def network_table(points, scheds):
    util = {(p.oversub, p.channels, p.sched): p.util for p in points}
    keys = sorted({(p.oversub, p.channels) for p in points}, key=lambda k: (k[0], float(k[1])))
    out = ["| oversub | channels | " + " | ".join(scheds) +
           " | crux over ecmp | crux over sincronia |",
           "|---|---|" + "---|" * (len(scheds) + 2)]
    for o, c in keys:
        u = [util.get((o, c, s)) for s in scheds]
        crux = util.get((o, c, "crux"))
        out.append(f"| {oversub_name(o)} | {c} | " + " | ".join(cell(v) for v in u) +
                   f" | {gain(crux, util.get((o, c, 'ecmp')))}"
                   f" | {gain(crux, util.get((o, c, 'sincronia')))} |")
    return out


def placement_table(points, scheds):
    util = {(p.placement, p.sched): p for p in points}
    policies = ordered([p.placement for p in points], "recorded")
    out = ["| placement | " + " | ".join(scheds) +
           " | crux over ecmp | crux over sincronia | crux over taccl |"
           " at risk / slowed by others (ecmp) |",
           "|---|" + "---|" * (len(scheds) + 4)]
    for pol in policies:
        u = {s: util[(pol, s)].util if (pol, s) in util else None for s in scheds}
        crux = u.get("crux")
        ecmp = util.get((pol, "ecmp"))
        c = ecmp.contention() if ecmp else None
        risk = f"{c[1]} / {c[2]} of {c[0]}" if c else ""
        out.append(f"| {pol} | " + " | ".join(cell(u[s]) for s in scheds) +
                   f" | {gain(crux, u.get('ecmp'))} | {gain(crux, u.get('sincronia'))}"
                   f" | {gain(crux, u.get('taccl'))} | {risk} |")
    return out


def coinciding(series, tol=5e-5):
    """Schedulers grouped by equal curves (every point within tol), in
    order: [(index of the first, [names])], so a line hidden under another
    is named in the other's legend entry."""
    groups = []
    for j, (s, pts) in enumerate(series):
        for _, names, ref in groups:
            if len(ref) == len(pts) and all(a[0] == b[0] and abs(a[1] - b[1]) <= tol
                                            for a, b in zip(ref, pts)):
                names.append(s)
                break
        else:
            groups.append((j, [s], pts))
    return [(j, names) for j, names, _ in groups]


def draw_network(fig, grid, points, scheds):
    overs = sorted({p.oversub for p in points})
    chans = sorted({float(p.channels) for p in points})
    axes = []
    for i, o in enumerate(overs):
        ax = fig.add_subplot(grid[0, i], sharey=axes[0] if axes else None)
        axes.append(ax)
        series = [(s, sorted((float(p.channels), p.util) for p in points
                             if p.oversub == o and p.sched == s)) for s in scheds]
        for j, names in coinciding([x for x in series if x[1]]):
            pts = dict(series)[names[0]]
            ax.plot([x for x, _ in pts], [y for _, y in pts], label=" = ".join(names),
                    markersize=4, **style(scheds.index(names[0])))
        ax.set_xscale("log", base=2)
        ax.set_xticks(chans)
        ax.set_xticklabels([f"{x:g}" for x in chans])
        ax.set_title(f"crux-clos2, uplinks {oversub_name(o)}", fontsize=9)
        ax.set_xlabel("NCCL channels per rail", fontsize=8)
        ax.legend(fontsize=6, loc="lower right")
        if i == 0:
            ax.set_ylabel(label(METRIC, 28), fontsize=8)
        else:
            plt.setp(ax.get_yticklabels(), visible=False)


def draw_placement(fig, grid, points, scheds, chan):
    ax = fig.add_subplot(grid[1, :])
    policies = ordered([p.placement for p in points], "recorded")
    util = {(p.placement, p.sched): p.util for p in points}
    width = 0.8 / len(scheds)
    for j, s in enumerate(scheds):
        xs = [i - 0.4 + width * (j + 0.5) for i, pol in enumerate(policies) if (pol, s) in util]
        ys = [util[(pol, s)] for pol in policies if (pol, s) in util]
        st = style(j)
        ax.bar(xs, ys, width, label=s, color=st["color"], edgecolor="black", linewidth=0.4,
               hatch=["", "//", "..", "xx", "\\\\", "oo"][j % 6])
    # recorded needs the trace's hosts: crux-clos2 named after its topo.csv
    traced = {p.placement for p in points if "hosts_from=" in p.topology}
    ax.set_xticks(range(len(policies)))
    ax.set_xticklabels([pol + ("\n(hosts_from)" if pol in traced else "") for pol in policies],
                       fontsize=8)
    ax.set_ylabel(label(METRIC, 28), fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_title(f"placement policy (crux-clos2 at 1:1, {chan} channels per rail)", fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)


def figure(network, placement, scheds, chan, path):
    cols = max(1, len({p.oversub for p in network}))
    fig = plt.figure(figsize=(3.2 * cols + 1.5, 6.4))
    grid = fig.add_gridspec(2, cols, hspace=0.45, wspace=0.12)
    if network:
        draw_network(fig, grid, network, scheds)
    if placement:
        draw_placement(fig, grid, placement, scheds, chan)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def splice(doc, text):
    with open(doc) as f:
        body = f.read()
    i, j = body.find(BEGIN), body.find(END)
    if i < 0 or j < i:
        fail(f"{doc}: no crux-sensitivity table markers ({BEGIN} ... {END})")
    with open(doc, "w") as f:
        f.write(body[:i + len(BEGIN)] + "\n" + text + body[j:])


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", help="the sensitivity sweep's output folder")
    p.add_argument("--out", help="figure (default DIR/figures/crux-sensitivity.png)")
    p.add_argument("--docs", help="also put the tables between FILE's markers")
    a = p.parse_args(argv)
    network, placement, chan = split(load(a.dir))
    if not network and not placement:
        fail(f"{a.dir}: no finished run of either panel")
    scheds = ordered([q.sched for q in network + placement])
    text = ""
    if network:
        text += "Network (placement locality):\n\n" + "\n".join(network_table(network, scheds)) + "\n\n"
    if placement:
        text += (f"Placement (crux-clos2 at 1:1, {chan} channels):\n\n" +
                 "\n".join(placement_table(placement, scheds)) + "\n\n")
    out = a.out or os.path.join(a.dir, "figures", "crux-sensitivity.png")
    figure(network, placement, scheds, chan, out)
    print(text, end="")
    if a.docs:
        splice(a.docs, text)
    print(f"plot_sensitivity: figure {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
