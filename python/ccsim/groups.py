"""groups.py - which runs a figure draws together, and which it averages.

Not here: drawing (figures.py).

A figure never decides by a column's position.  Every configuration
column whose value varies across the runs is something the figure shows:
the hue (a colour per value, the scheduler by default), the x axis, or a
panel (a facet).  Only the seed is averaged, plus any column the caller
names in `average`; the window (sim_start_s, sim_end_s) never is, since
runs over different windows measure different things.  A column that
varies only together with another already shown (gpus_total with the
topology) adds no group and is left out of the labels.
"""
import os

from .columns import WINDOW


class PlotError(Exception):
    """A figure that would average the wrong runs, or a column that does
    not exist."""


def short_value(column, value):
    """A value for a label: file paths reduced to base names."""
    text = str(value)
    if column != "topology":
        return os.path.basename(text).split(".")[0] if "/" in text else text
    if text.endswith(".json") and ":" not in text:
        return "custom topology"
    head, _, rest = text.partition(":")
    parts = []
    for p in rest.split(",") if rest else []:
        k, eq, v = p.partition("=")
        if eq and ("/" in v or v.endswith((".csv", ".gz", ".json"))):
            v = os.path.basename(v).split(".")[0]
        parts.append(k + eq + v)
    return head + (":" + ",".join(parts) if parts else "")


def _number(v):
    try:
        return f"{float(v):g}"
    except (TypeError, ValueError):
        return str(v)


def describe(columns, values):
    """"col=value, ..." for a group, the window as "window A-B s"."""
    d = dict(zip(columns, values))
    parts = []
    if "sim_start_s" in d or "sim_end_s" in d:
        parts.append(f"window {_number(d.pop('sim_start_s', '?'))}-"
                     f"{_number(d.pop('sim_end_s', '?'))} s")
    for c, v in d.items():
        parts.append(short_value(c, v) if c == "topology" else f"{c}={short_value(c, v)}")
    return ", ".join(parts)


def _refines(runs, shown, column):
    """Does column split a group of the columns shown so far?"""
    if not shown:
        return runs[column].nunique(dropna=False) > 1
    return bool(runs.groupby(shown, dropna=False)[column].nunique(dropna=False).gt(1).any())


class Plan:
    """What a figure shows: hue, x, facets, and what it averages."""

    def __init__(self, hue, x, facet, averaged, runs):
        self.hue = hue            # column, one colour per value
        self.x = x                # columns on the x axis (bars), may be empty
        self.facet = facet        # columns, one panel per combination
        self.averaged = averaged  # columns averaged over (always "seed" first)
        self.runs = runs

    @property
    def groups(self):
        """Every shown column but the hue: a panel of line figures."""
        return self.facet + self.x

    def cells(self, by):
        """(key tuple, runs) for each combination of the columns by."""
        if not by:
            return [((), self.runs)]
        group = self.runs.groupby(by if len(by) > 1 else by[0], sort=False, dropna=False)
        return [(k if len(by) > 1 else (k,), df) for k, df in group]

    def averaged_note(self):
        """What each drawn value averages, in words."""
        per = self.runs.groupby(self.facet + self.x + [self.hue], dropna=False).size()
        lo, hi = int(per.min()), int(per.max())
        count = f"{lo}" if lo == hi else f"{lo}-{hi}"
        if hi == 1:
            return "one run per value (nothing averaged)"
        seeds = sorted(self.runs["seed"].unique()) if "seed" in self.runs else []
        what = ", ".join(self.averaged)
        return (f"mean over {count} runs per value (averaged: {what}; seeds "
                f"{', '.join(str(s) for s in seeds)})")


def _columns(res, given):
    for c in given:
        if c not in res.runs.columns:
            raise PlotError(f"no column '{c}' in the runs (columns: "
                            f"{', '.join(res.config_columns)})")
    return list(given)


def plan(res, hue="scheduler", x=(), facet=(), average=()):
    """The Plan for res (load.Results): hue, x and facet as asked, every
    other varying configuration column added to the facets, the seed and
    `average` averaged.  PlotError when a window column would be averaged
    or a column is unknown."""
    runs = res.runs
    hue = hue if hue in runs.columns else None
    x, facet, average = _columns(res, x), _columns(res, facet), _columns(res, average)
    window = [c for c in average if c in WINDOW and runs[c].nunique() > 1]
    if window:
        raise PlotError("refusing to average runs over different windows "
                        f"({', '.join(window)} differ): show them as --x or --facet instead")
    shown = [c for c in [hue] + x + facet if c]
    averaged = ["seed"] + [c for c in average if c != "seed"]
    for c in res.config_columns:
        if c in shown or c in averaged or not _refines(runs, shown, c):
            continue
        facet.append(c)
        shown.append(c)
    # the window's two ends go together, in the same list
    for lst in (x, facet):
        for a, b in (WINDOW, WINDOW[::-1]):
            if a in lst and b not in shown and b in runs.columns:
                lst.insert(lst.index(a) + (a == WINDOW[0]), b)
                shown.append(b)
    if hue is None:
        runs = runs.assign(_hue="all runs")
        hue = "_hue"
        shown.append(hue)
    # what is left inside a cell may differ only in the averaged columns
    rest = [c for c in res.config_columns if c not in averaged and c not in shown]
    if rest:
        split = runs.groupby(shown, dropna=False)[rest].nunique(dropna=False).gt(1).any()
        if split.any():
            raise PlotError(f"runs that differ in {', '.join(split[split].index)} would be "
                            "averaged")
    return Plan(hue, x, facet, averaged, runs)
