"""figures.py - the standard figures of a result folder (docs/experiments.md).

Not here: which runs go together (groups.py), reading files (load.py).

Each figure function takes Results and a Plan and returns (figure, data):
data is a DataFrame of exactly the values drawn (one row per bar, line or
heat strip, with the group it belongs to), so a test can check what a
figure shows, not only that a file appeared.

  util_bars       a summary metric (default gpu_util_cluster_frac) per
                  x value and hue, one panel per facet, each bar labelled
                  with its gain over the baseline; axis from 0
  util_time       cluster GPU utilization over time, a line per hue, a
                  panel per group on its own time axis; axis from 0
  slowdown_cdf    CDF of job slowdown (jobs that ran) from 0 to 1, a line
                  per hue, a panel per group
  link_occupancy  GPU-intensity-weighted occupancy of each link tier over
                  time, a heat strip per tier (white: exactly 0), a panel
                  per group and hue

Panels are laid out in a grid of at most four columns, so up to 12 groups
stay readable.  Each hue value keeps one colour, marker, line style and
hatch in every figure; the constant configuration (topology, placement,
channels, window, ...) is written under the title.
"""
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .columns import TIERS, WINDOW, label  # noqa: E402
from .groups import Plan, describe, short_value  # noqa: E402

COLOURS = plt.get_cmap("tab10").colors
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]
LINESTYLES = ["-", "--", "-.", ":"]
HATCHES = ["", "//", "..", "xx", "\\\\", "oo"]
MAX_COLS = 4
# What the caption shows of the configuration when it is the same for all.
CAPTION = ["topology", "placement", "channels", "collective_model", "priority_levels",
           "mode", "sim_start_s", "sim_end_s", "trace"]


def style(i):
    """Colour, marker and line style of the i-th hue value."""
    return dict(color=COLOURS[i % 10], marker=MARKERS[i % len(MARKERS)],
                linestyle=LINESTYLES[i % len(LINESTYLES)])


def hue_order(plan, baseline):
    """The hue values in order of appearance, the baseline first."""
    values = list(dict.fromkeys(plan.runs[plan.hue]))
    if baseline in values:
        values.remove(baseline)
        values.insert(0, baseline)
    return values


def grid(n, width, height):
    """A figure with n panels in a grid of at most MAX_COLS columns, each
    width x height inches; the unused axes are hidden."""
    cols = min(n, MAX_COLS)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows + 0.9),
                             squeeze=False)
    flat = list(axes.flat)
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def caption(fig, plan, extra=""):
    """Under the title: the configuration every run shares, and what was
    averaged."""
    parts = []
    runs = plan.runs
    for c in CAPTION:
        if c in runs.columns and runs[c].nunique(dropna=False) == 1 \
                and c not in plan.groups and runs[c].notna().all():
            parts.append((c, runs[c].iloc[0]))
    text = describe([c for c, _ in parts], [v for _, v in parts])
    fig.text(0.01, 0.005, "\n".join(t for t in (text, plan.averaged_note(), extra) if t),
             fontsize=7, va="bottom", ha="left", wrap=True)


def legend(fig, ax, plan):
    """One legend for the figure, above the panels, right."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="upper right", fontsize=7, ncols=min(len(labels), 8),
                   title=None if plan.hue == "_hue" else plan.hue, title_fontsize=7,
                   frameon=False)


def _panel_title(plan, cols, key):
    return describe(cols, key) if cols else ""


def _label_panel(ax, plan, key, xlabel, ylabel):
    ax.set_title(_panel_title(plan, plan.groups, key), fontsize=8)
    ax.set_xlabel(xlabel, fontsize=7)
    ax.set_ylabel(ylabel, fontsize=7)
    ax.tick_params(labelsize=7)


def _finish(fig, axes, plan, title):
    """One legend, the title, the caption, the layout; (fig, data) follow."""
    legend(fig, axes[0], plan)
    fig.suptitle(title, fontsize=9)
    caption(fig, plan)
    fig.tight_layout(rect=(0, 0.07, 1, 0.95))


# ---- util_bars -------------------------------------------------------------

def util_bars(res, plan, metric="gpu_util_cluster_frac", baseline="ecmp"):
    """Bars of metric: x = plan.x (or one tick), hue = plan.hue, one panel
    per facet; error bars = standard deviation over the averaged runs."""
    runs = plan.runs
    if metric not in runs.columns:
        return None, None
    plan = bars_plan(plan)
    hues = hue_order(plan, baseline)
    keys = plan.facet + plan.x + [plan.hue]
    stats = runs.groupby(keys, sort=False, dropna=False)[metric].agg(["mean", "std", "count"])
    stats = stats.reset_index().rename(columns={"count": "runs"})
    stats["std"] = stats["std"].fillna(0.0)
    cell = plan.facet + plan.x
    base = stats.loc[stats[plan.hue] == baseline, cell + ["mean"]].rename(
        columns={"mean": "baseline_mean"})
    if cell:
        stats = stats.merge(base, on=cell, how="left")
    else:
        stats["baseline_mean"] = base["baseline_mean"].iloc[0] if len(base) else np.nan
    stats["gain_frac"] = stats["mean"] / stats["baseline_mean"].where(
        stats["baseline_mean"] > 0) - 1.0
    panels = plan.cells(plan.facet)
    n_x = max(len(df.groupby(plan.x, sort=False)) if plan.x else 1 for _, df in panels)
    fig, axes = grid(len(panels), max(4.0, 0.32 * n_x * len(hues) + 1.5), 3.4)
    width = 0.8 / len(hues)
    top = (stats["mean"] + stats["std"]).max()
    for ax, (key, df) in zip(axes, panels):
        xs = list(dict.fromkeys(tuple(r) for r in df[plan.x].itertuples(index=False))) \
            if plan.x else [()]
        sel = stats
        for c, v in zip(plan.facet, key):
            sel = sel[_eq(sel[c], v)]
        for j, h in enumerate(hues):
            for i, xv in enumerate(xs):
                row = sel[_eq(sel[plan.hue], h)]
                for c, v in zip(plan.x, xv):
                    row = row[_eq(row[c], v)]
                if row.empty:
                    continue
                r = row.iloc[0]
                pos = i - 0.4 + width * (j + 0.5)
                ax.bar(pos, r["mean"], width, yerr=r["std"] if r["std"] > 0 else None,
                       color=style(j)["color"], hatch=HATCHES[j % len(HATCHES)],
                       edgecolor="black", linewidth=0.4, capsize=2,
                       label=str(h) if i == 0 else None)
                if h != baseline and not np.isnan(r["gain_frac"]):
                    ax.annotate(f"{100 * r['gain_frac']:+.1f}%", (pos, r["mean"] + r["std"]),
                                ha="center", va="bottom", fontsize=6, rotation=90,
                                xytext=(0, 2), textcoords="offset points")
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([describe(plan.x, xv) for xv in xs] if plan.x else [""],
                           fontsize=7, rotation=20 if len(xs) > 3 else 0, ha="right"
                           if len(xs) > 3 else "center")
        ax.set_ylim(0, top * 1.25 if top > 0 else 1)
        ax.set_ylabel(label(metric, 30), fontsize=8)
        ax.set_title(_panel_title(plan, plan.facet, key), fontsize=8)
    _finish(fig, axes, plan, f"{label(metric, 80)}; labels: gain over {baseline}")
    return fig, stats


def bars_plan(plan):
    """Bars need an x axis: without one asked for, the last facet (the
    window's two ends together) becomes it."""
    if plan.x or not plan.facet:
        return plan
    facet = list(plan.facet)
    x = [facet.pop()]
    if x[0] in WINDOW and facet and facet[-1] in WINDOW:
        x.insert(0, facet.pop())
    return Plan(plan.hue, x, facet, plan.averaged, plan.runs)


def _eq(series, value):
    """Equality that holds NaN equal to NaN (an empty cell's group)."""
    if isinstance(value, float) and math.isnan(value):
        return series.isna()
    return series == value


# ---- util_time -------------------------------------------------------------

def util_time(res, plan, baseline="ecmp"):
    """Cluster GPU utilization over time: per group a panel, per hue the
    mean at each time over the averaged runs (one window per group)."""
    ts = res.timeseries
    if ts is None or "gpu_util_cluster_frac" not in ts.columns:
        return None, None
    hues = hue_order(plan, baseline)
    panels = plan.cells(plan.groups)
    fig, axes = grid(len(panels), 4.2, 2.8)
    rows = []
    for ax, (key, df) in zip(axes, panels):
        for j, h in enumerate(hues):
            names = df.loc[_eq(df[plan.hue], h), "run"]
            if names.empty:
                continue
            line = ts[ts["run"].isin(names)].groupby("t_s")["gpu_util_cluster_frac"].mean()
            ax.plot(line.index, line.values, markevery=max(1, len(line) // 10), markersize=3,
                    label=str(h), **style(j))
            rows.append(dict(zip(plan.groups, key), hue=h, runs=len(names), points=len(line),
                             mean=float(line.mean()), t0_s=float(line.index.min()),
                             t1_s=float(line.index.max())))
        ax.set_ylim(bottom=0)
        _label_panel(ax, plan, key, label("t_s"), label("gpu_util_cluster_frac", 28))
    _finish(fig, axes, plan, "cluster GPU utilization over time")
    return fig, pd.DataFrame(rows)


# ---- slowdown_cdf ----------------------------------------------------------

def _ran(jobs):
    """The jobs that ran (column `ran`, or `status` in older files)."""
    if "ran" in jobs.columns:
        return jobs[jobs["ran"] == 1]
    if "status" in jobs.columns:
        return jobs[jobs["status"] == "ran"]
    return jobs


def slowdown_cdf(res, plan, baseline="ecmp"):
    """CDF of the slowdown of every job that ran and completed an
    iteration, pooled over the averaged runs; y from 0 to 1."""
    jobs = res.jobs
    if jobs is None or "slowdown" not in jobs.columns:
        return None, None
    jobs = _ran(jobs)
    jobs = jobs[np.isfinite(pd.to_numeric(jobs["slowdown"], errors="coerce"))]
    hues = hue_order(plan, baseline)
    panels = plan.cells(plan.groups)
    fig, axes = grid(len(panels), 4.2, 3.0)
    rows = []
    for ax, (key, df) in zip(axes, panels):
        for j, h in enumerate(hues):
            names = df.loc[_eq(df[plan.hue], h), "run"]
            v = np.sort(jobs.loc[jobs["run"].isin(names), "slowdown"].to_numpy(float))
            if len(v) == 0:
                continue
            y = np.arange(1, len(v) + 1) / len(v)
            ax.step(np.r_[v[0], v], np.r_[0.0, y], where="post", label=str(h),
                    markevery=max(1, len(v) // 8), markersize=3, **style(j))
            rows.append(dict(zip(plan.groups, key), hue=h, runs=len(names), jobs=len(v),
                             p50=float(np.quantile(v, 0.5)), p99=float(np.quantile(v, 0.99)),
                             max=float(v[-1])))
        ax.set_ylim(0, 1.02)
        ax.ticklabel_format(axis="x", useOffset=False)
        lo, hi = ax.get_xlim()
        if hi - lo < 0.01:  # every job at its isolated time: a readable range around it
            ax.set_xlim(lo - 0.005, lo + 0.02)
        _label_panel(ax, plan, key, label("slowdown", 32), "fraction of jobs (CDF)")
    _finish(fig, axes, plan, "job slowdown, jobs pooled over the averaged runs")
    return fig, pd.DataFrame(rows)


# ---- link_occupancy --------------------------------------------------------

def _occupancy_column(links):
    for c in ("intensity_occupancy_gpus", "intensity_occupancy"):
        if c in links.columns:
            return c
    return None


def link_occupancy(res, plan, baseline="ecmp"):
    """Heat strips of the intensity-weighted occupancy per tier over
    time: rows = groups, columns = hue values, each on its own window."""
    links = res.links
    col = _occupancy_column(links) if links is not None else None
    if col is None:
        return None, None
    hues = hue_order(plan, baseline)
    groups = plan.cells(plan.groups)
    vmax = float(links[col].max()) or 1.0
    cmap = plt.get_cmap("YlOrRd").copy()
    cmap.set_under("white")  # exactly 0: white, below the smallest positive colour
    n_tiers = links["tier"].nunique()
    fig = plt.figure(layout="constrained",
                     figsize=(3.0 * len(hues) + 0.4, (0.22 * n_tiers + 0.9) * len(groups) + 1.6))
    rows_fig = fig.subfigures(len(groups) + 1, 1, squeeze=False,
                              height_ratios=[0.22 * n_tiers + 0.9] * len(groups) + [1.2])[:, 0]
    rows, image = [], None
    for (key, df), sub_fig in zip(groups, rows_fig):
        if plan.groups:
            sub_fig.suptitle(describe(plan.groups, key), fontsize=8, x=0.01, ha="left")
        axes = sub_fig.subplots(1, len(hues), squeeze=False)[0]
        for h, ax in zip(hues, axes):
            names = df.loc[_eq(df[plan.hue], h), "run"]
            sub = links[links["run"].isin(names)]
            if sub.empty:
                ax.set_visible(False)
                continue
            mat = sub.groupby(["tier", "t_s"])[col].mean().unstack("t_s")
            tiers = [t for t in TIERS if t in mat.index] + [t for t in mat.index if t not in TIERS]
            mat = mat.loc[tiers]
            t = mat.columns.to_numpy(float)
            step = t[1] - t[0] if len(t) > 1 else 1.0
            image = ax.imshow(mat.to_numpy(float), aspect="auto", cmap=cmap, vmin=1e-9,
                              vmax=vmax, interpolation="nearest",
                              extent=(t[0], t[-1] + step, len(tiers), 0))
            ax.set_yticks([i + 0.5 for i in range(len(tiers))])
            ax.set_yticklabels(tiers, fontsize=6)
            ax.tick_params(axis="x", labelsize=6)
            ax.set_title(str(h), fontsize=7)
            for tier in tiers:
                rows.append(dict(zip(plan.groups, key), hue=h, runs=len(names), tier=tier,
                                 mean=float(mat.loc[tier].mean()),
                                 max=float(mat.loc[tier].max()),
                                 zero_frac=float((mat.loc[tier] == 0).mean())))
    bottom = rows_fig[-1]
    if image is not None:
        cax = bottom.add_axes((0.2, 0.78, 0.6, 0.1))
        bar = bottom.colorbar(image, cax=cax, orientation="horizontal", extend="min")
        bar.set_label(label("intensity_occupancy_gpus", 80) + "; white: exactly 0; "
                      f"x: {label('t_s')}", fontsize=7)
        bar.ax.tick_params(labelsize=6)
    fig.suptitle("GPU-intensity-weighted link occupancy (Crux fig. 24)", fontsize=9)
    caption(bottom, plan)
    return fig, pd.DataFrame(rows)


FIGURES = {
    "util_bars": util_bars,
    "util_time": util_time,
    "slowdown_cdf": slowdown_cdf,
    "link_occupancy": link_occupancy,
}

__all__ = ["FIGURES", "util_bars", "util_time", "slowdown_cdf", "link_occupancy", "style",
           "short_value"]
