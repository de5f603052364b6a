#!/usr/bin/python3
"""plot.py - figures from ccsim results (docs/experiments.md).

Usage: scripts/plot.py DIR [--out FIGDIR] [--metric COLUMN] [--baseline NAME]

DIR is the output folder of `ccsim run` (summary.csv, jobs.csv,
timeseries.csv, links.csv), of `ccsim compare` (one such folder per
scheduler) or of `ccsim sweep` (summary.csv and runs/NAME/).  Writes PNG
and SVG into FIGDIR (default DIR/figures):

  util_bars       mean GPU utilization per group and scheduler, each bar
                  labelled with its gain over the baseline (ecmp), as in the
                  Crux paper's figure 23; error bars: standard deviation
                  over the seeds averaged; the axis zoomed to the data
  util_time       cluster GPU utilization over time, one line per scheduler,
                  one panel per group
  slowdown_cdf    CDF of job slowdown, one line per scheduler
  link_occupancy  GPU-intensity-weighted occupancy (GPUs) of each link tier
                  over time, one heat strip per tier (the paper's figure 24)

A group is the runs that differ only in scheduler and seed (topology,
window and swept values are facets): runs of different windows are never
averaged.  Each scheduler keeps one colour, marker and line style.  Axis
labels come from the column dictionary of docs/usage.md.

A figure whose inputs are missing is skipped with a note on stderr.
Only the Python standard library and matplotlib (Debian's
python3-matplotlib) are used.
"""
import argparse
import csv
import math
import os
import sys
import textwrap
from collections import OrderedDict, defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def note(msg):
    print(f"plot: {msg}", file=sys.stderr)


# Scheduler styles: colour and marker by name, the same in every figure.
COLOURS = plt.get_cmap("tab10").colors
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]
LINESTYLES = ["-", "--", "-.", ":"]


def style(i):
    """Colour, marker and line style of the i-th scheduler."""
    return dict(color=COLOURS[i % 10], marker=MARKERS[i % len(MARKERS)],
                linestyle=LINESTYLES[i % len(LINESTYLES)])


def load_labels():
    """The column dictionary of docs/usage.md ("## Column dictionary": a
    table | column | label |), so figures and docs name columns alike."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "docs", "usage.md")
    labels, inside = {}, False
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("## "):
                    inside = line.strip() == "## Column dictionary"
                elif inside and line.startswith("| `"):
                    cells = [c.strip() for c in line.strip().strip("|").split("|")]
                    if len(cells) >= 2:
                        labels[cells[0].strip("`")] = cells[1]
    except OSError:
        pass
    return labels


LABELS = load_labels()


def label(column, width=40):
    """A column's name in words with its unit (docs/usage.md), else itself,
    wrapped to width characters."""
    return textwrap.fill(LABELS.get(column, column), width)


def short_topology(spec):
    """A topology spec for a tick label: file paths reduced to base names;
    a topology written in the scenario file as "custom topology"."""
    if spec.endswith(".json") and ":" not in spec:
        return "custom topology"
    parts = []
    for p in spec.replace(":", ",", 1).split(","):
        k, eq, v = p.partition("=")
        if eq and ("/" in v or v.endswith((".csv", ".gz", ".json"))):
            v = os.path.basename(v).split(".")[0]
        parts.append(k + eq + v)
    head, rest = parts[0], parts[1:]
    return head + (":" + ",".join(rest) if rest else "")


def read_csv(path):
    """Rows of a CSV file as dicts, or None when it does not exist."""
    if not os.path.isfile(path):
        gz = path + ".gz"
        if os.path.isfile(gz):
            import gzip
            with gzip.open(gz, "rt", newline="") as f:
                return list(csv.DictReader(f))
        return None
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(value):
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


class Run:
    """One simulation: its summary row and its folder."""

    def __init__(self, row, folder):
        self.row = row
        self.folder = folder
        self.topology = row.get("topology") or "?"
        self.scheduler = row.get("scheduler") or os.path.basename(folder)

    def csv(self, name):
        return read_csv(os.path.join(self.folder, name))


def find_runs(d):
    """The runs of a run, compare or sweep folder."""
    runs_dir = os.path.join(d, "runs")
    if os.path.isdir(runs_dir):  # a sweep
        rows = read_csv(os.path.join(d, "summary.csv")) or []
        return [Run(r, os.path.join(runs_dir, r.get("run", ""))) for r in rows]
    own = read_csv(os.path.join(d, "summary.csv"))
    if own and any(os.path.exists(os.path.join(d, f))
                   for f in ("timeseries.csv", "jobs.csv", "links.csv", "run.json")):
        return [Run(own[0], d)]  # a single run
    runs = []
    for sub in sorted(os.listdir(d)):  # a compare: one folder per scheduler
        folder = os.path.join(d, sub)
        rows = read_csv(os.path.join(folder, "summary.csv"))
        if os.path.isdir(folder) and rows:
            runs.append(Run(rows[0], folder))
    if not runs and own:
        runs = [Run(r, d) for r in own]
    return runs


def ordered(values, first="ecmp"):
    """Unique values in order of appearance, the baseline first."""
    out = list(OrderedDict.fromkeys(values))
    if first in out:
        out.remove(first)
        out.insert(0, first)
    return out


def save(fig, out_dir, name, written):
    for ext in ("png", "svg"):
        path = os.path.join(out_dir, f"{name}.{ext}")
        fig.savefig(path, dpi=150, bbox_inches="tight")
        written.append(path)
    plt.close(fig)


# Columns that are not a facet: the scheduler (a bar or line of its own),
# seeds (averaged over), and what every run reports anyway.
NOT_FACETS = {"run", "scheduler", "seed", "scenario", "trace", "mode"}


def facet_columns(runs):
    """The summary columns that tell the groups apart: the topology, the
    window, and any swept value (a sweep's columns before the run's own)."""
    if not runs:
        return []
    cols = ["topology", "sim_start_s", "sim_end_s"]
    first = runs[0].row
    for c in first:  # a sweep's swept keys come right after "run"
        if c in ("scenario", "topology"):
            break
        if c not in NOT_FACETS and c not in cols:
            cols.append(c)
    varying = [c for c in cols if len({r.row.get(c) for r in runs}) > 1]
    return varying or ["topology"]


def facet_name(run, cols):
    parts = []
    for c in cols:
        v = run.row.get(c, "")
        if c == "topology":
            parts.append(short_topology(v or "?"))
        elif c == "sim_start_s":
            parts.append(f"window {v}")
        elif c == "sim_end_s":
            parts[-1:] = [f"{parts[-1]}-{v} s"] if parts and parts[-1].startswith("window") \
                else [f"to {v} s"]
        else:
            parts.append(f"{c}={v}")
    return "\n".join(parts)


def by_topology(runs):
    """Runs grouped by facet (topology, window, swept values): only runs of
    one group are ever averaged (over seeds)."""
    cols = facet_columns(runs)
    groups = OrderedDict()
    for r in runs:
        groups.setdefault(facet_name(r, cols), []).append(r)
    return groups


def fig_util_bars(runs, out_dir, written, metric, baseline):
    values = defaultdict(list)
    for t, rs in by_topology(runs).items():
        for r in rs:
            v = num(r.row.get(metric))
            if v is not None:
                values[(t, r.scheduler)].append(v)
    if not values:
        note(f"util_bars skipped: no '{metric}' column in the summaries")
        return
    topos = ordered([t for t, _ in values])
    scheds = ordered([s for _, s in values], baseline)
    width = 0.8 / len(scheds)
    fig, ax = plt.subplots(figsize=(max(5, 1.6 * len(topos) * len(scheds) * 0.6 + 2), 4))
    for j, s in enumerate(scheds):
        xs, means, errs = [], [], []
        for i, t in enumerate(topos):
            v = values.get((t, s))
            if not v:
                continue
            m = sum(v) / len(v)
            sd = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else 0.0
            xs.append(i - 0.4 + width * (j + 0.5))
            means.append(m)
            errs.append(sd)
        st = style(j)
        bars = ax.bar(xs, means, width, yerr=errs if any(errs) else None, label=s,
                      color=st["color"], capsize=2, edgecolor="black", linewidth=0.4,
                      hatch=["", "//", "..", "xx", "\\\\", "oo"][j % 6])
        for x, m, sd, t in zip(xs, means, errs, [t for t in topos if values.get((t, s))]):
            base = values.get((t, baseline))
            if base and s != baseline:
                b = sum(base) / len(base)
                if b > 0:
                    ax.annotate(f"{100 * (m / b - 1):+.1f}%", (x, m + sd), ha="center",
                                va="bottom", fontsize=7, xytext=(0, 2),
                                textcoords="offset points")
        del bars
    ax.set_xticks(range(len(topos)))
    ax.set_xticklabels(topos, fontsize=8)
    ax.set_ylabel(label(metric))
    # zoom to the data (the axis does not start at 0: the gains are printed)
    top = max(max(v) for v in values.values())
    low = min(min(v) for v in values.values())
    pad = max((top - low) * 0.5, 0.01)
    ax.set_ylim(max(0.0, low - pad), min(1.05, top + pad) if top <= 1 else top + pad)
    seeds = max(len(v) for v in values.values())
    ax.set_title(f"Mean over {seeds} seed(s) per bar; labels: gain over {baseline}"
                 if seeds > 1 else f"Labels: gain over {baseline}", fontsize=9)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    save(fig, out_dir, "util_bars", written)


def time_unit(max_s):
    """(divisor, label) for a time axis spanning max_s seconds."""
    if max_s >= 2 * 3600:
        return 3600.0, "h"
    if max_s >= 120:
        return 60.0, "min"
    return 1.0, "s"


def series(run, xcol, ycol, name):
    rows = run.csv(name)
    if not rows or xcol not in rows[0] or ycol not in rows[0]:
        return None
    pts = [(num(r[xcol]), num(r[ycol])) for r in rows]
    return [(x, y) for x, y in pts if x is not None and y is not None]


def fig_util_time(runs, out_dir, written, baseline):
    groups = by_topology(runs)
    data = OrderedDict()
    for t, rs in groups.items():
        per_sched = OrderedDict()
        for r in rs:
            s = series(r, "t_s", "gpu_util_cluster_frac", "timeseries.csv")
            if s:
                per_sched.setdefault(r.scheduler, []).append(s)
        if per_sched:
            data[t] = per_sched
    if not data:
        note("util_time skipped: no timeseries.csv with t_s and gpu_util_cluster_frac")
        return
    span = max(x for per in data.values() for ls in per.values() for line in ls for x, _ in line)
    div, unit = time_unit(span)
    # each facet on its own time axis: windows differ
    fig, axes = plt.subplots(len(data), 1, figsize=(8, 2.6 * len(data)), squeeze=False)
    scheds_all = [s for per in data.values() for s in per]
    for ax, (t, per_sched) in zip(axes[:, 0], data.items()):
        for s in ordered(per_sched, baseline):
            lines = per_sched[s]
            # Mean, at each time, over the seeds of this facet (one window).
            by_t = defaultdict(list)
            for line in lines:
                for x, y in line:
                    by_t[x].append(y)
            xs = sorted(by_t)
            if not xs:
                note(f"util_time: no data for {t} / {s}")
                continue
            most = max(len(ys) for ys in by_t.values())
            i = ordered(scheds_all, baseline).index(s)
            ax.plot([x / div for x in xs], [sum(by_t[x]) / len(by_t[x]) for x in xs],
                    markevery=(i, max(1, len(xs) // 12)), markersize=4, **style(i),
                    label=f"{s}" + (f" (mean of {most} seeds)" if most > 1 else ""))
        ax.set_title(t.replace("\n", ", "), fontsize=9)
        ax.set_ylabel(label("gpu_util_cluster_frac", 26), fontsize=8)
        ax.legend(fontsize=7)
    for ax in axes[:, 0]:
        ax.set_xlabel(f"simulated time ({unit})", fontsize=8)
    fig.tight_layout()
    save(fig, out_dir, "util_time", written)


def fig_slowdown_cdf(runs, out_dir, written, baseline):
    data = OrderedDict()
    for t, rs in by_topology(runs).items():
        per_sched = OrderedDict()
        for r in rs:
            rows = r.csv("jobs.csv")
            if not rows or "slowdown" not in rows[0]:
                continue
            vals = [num(x["slowdown"]) for x in rows]
            per_sched.setdefault(r.scheduler, []).extend(v for v in vals if v is not None)
        if any(per_sched.values()):
            data[t] = per_sched
    if not data:
        note("slowdown_cdf skipped: no jobs.csv with a slowdown column")
        return
    fig, axes = plt.subplots(1, len(data), figsize=(4.5 * len(data), 3.5), squeeze=False)
    for ax, (t, per_sched) in zip(axes[0], data.items()):
        for i, s in enumerate(ordered(per_sched, baseline)):
            v = sorted(per_sched[s])
            if not v:
                continue
            ax.step(v, [(k + 1) / len(v) for k in range(len(v))], where="post", label=s,
                    markevery=(i, max(1, len(v) // 8)), markersize=4, **style(i))
        ax.set_title(t.replace("\n", ", "), fontsize=9)
        ax.set_xlabel(label("slowdown"))
        ax.set_ylabel("fraction of jobs (CDF)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    save(fig, out_dir, "slowdown_cdf", written)


def link_matrix(run):
    """(times, tiers, matrix[tier][time]) of the intensity-weighted
    occupancy in links.csv (long format: t_s, tier, ...; or wide: one
    column per tier), or None."""
    rows = run.csv("links.csv")
    if not rows:
        return None
    cols = list(rows[0].keys())
    tcol = next((c for c in ("t_s", "start_s", "interval_start_s", "time_s") if c in cols), None)
    if tcol is None:
        return None
    value_cols = [c for c in cols if "intensity" in c] or \
                 [c for c in cols if "occupancy" in c] or [c for c in cols if "util" in c]
    if "tier" in cols and value_cols:
        v = value_cols[0]
        cells = defaultdict(dict)
        for r in rows:
            x, y = num(r[tcol]), num(r[v])
            if x is not None and y is not None:
                cells[r["tier"]][x] = y
        tiers = list(OrderedDict.fromkeys(r["tier"] for r in rows))
    elif value_cols:  # wide: tier columns
        cells = defaultdict(dict)
        for r in rows:
            x = num(r[tcol])
            for c in value_cols:
                y = num(r[c])
                if x is not None and y is not None:
                    cells[c][x] = y
        tiers = value_cols
    else:
        return None
    times = sorted({x for tier in cells.values() for x in tier})
    if not times:
        return None
    return times, tiers, [[cells[k].get(x, 0.0) for x in times] for k in tiers]


def fig_link_occupancy(runs, out_dir, written, baseline):
    panels = []
    seen = set()
    for t, rs in by_topology(runs).items():
        for s in ordered([r.scheduler for r in rs], baseline):
            r = next(r for r in rs if r.scheduler == s)  # the first seed
            if (t, s) in seen:
                continue
            seen.add((t, s))
            m = link_matrix(r)
            if m:
                panels.append((f"{t} / {s}", m))
    if not panels:
        note("link_occupancy skipped: no links.csv with per-tier intensity occupancy")
        return
    vmax = max(max(max(row) for row in m[2]) for _, m in panels) or 1.0
    div, unit = time_unit(max(m[0][-1] for _, m in panels))
    fig, axes = plt.subplots(len(panels), 1, sharex=True, squeeze=False,
                             figsize=(9, 0.6 + 0.3 * sum(len(m[1]) + 1 for _, m in panels)))
    image = None
    for ax, (title, (times, tiers, mat)) in zip(axes[:, 0], panels):
        step = times[1] - times[0] if len(times) > 1 else 1.0
        image = ax.imshow(mat, aspect="auto", cmap="YlOrRd", vmin=0, vmax=vmax,
                          extent=(times[0] / div, (times[-1] + step) / div, len(tiers), 0),
                          interpolation="nearest")
        ax.set_yticks([i + 0.5 for i in range(len(tiers))])
        ax.set_yticklabels(tiers, fontsize=7)
        quiet = " (no network traffic)" if max(max(row) for row in mat) == 0 else ""
        ax.set_title(title.replace("\n", ", ") + quiet, fontsize=8, loc="left", pad=2)
    axes[-1, 0].set_xlabel(f"simulated time ({unit})")
    fig.colorbar(image, ax=axes[:, 0].tolist(), label=label("intensity_occupancy"))
    save(fig, out_dir, "link_occupancy", written)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", help="a ccsim run, compare or sweep output folder")
    p.add_argument("--out", help="figure folder (default DIR/figures)")
    p.add_argument("--metric", default="gpu_util_cluster_frac",
                   help="summary column for the bars (default gpu_util_cluster_frac)")
    p.add_argument("--baseline", default="ecmp", help="scheduler gains are relative to")
    a = p.parse_args(argv)
    if not os.path.isdir(a.dir):
        print(f"plot: {a.dir}: not a folder", file=sys.stderr)
        return 2
    runs = find_runs(a.dir)
    if not runs:
        print(f"plot: {a.dir}: no results (no summary.csv)", file=sys.stderr)
        return 1
    out = a.out or os.path.join(a.dir, "figures")
    os.makedirs(out, exist_ok=True)
    written = []
    fig_util_bars(runs, out, written, a.metric, a.baseline)
    fig_util_time(runs, out, written, a.baseline)
    fig_slowdown_cdf(runs, out, written, a.baseline)
    fig_link_occupancy(runs, out, written, a.baseline)
    for w in written:
        print(w)
    note(f"{len(written) // 2} figure(s) from {len(runs)} run(s) in {out}")
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
