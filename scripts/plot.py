#!/usr/bin/python3
"""plot.py - figures from ccsim results (docs/experiments.md, section 4).

Usage: scripts/plot.py DIR [--out FIGDIR] [--metric COLUMN] [--baseline NAME]
                       [--hue COL] [--x COL] [--facet COL] [--average COL]
                       [--format png,pdf] [--only FIGURE,...]

DIR is the output folder of `ccsim run`, `ccsim compare` or `ccsim sweep`.
Writes util_bars, util_time, slowdown_cdf and link_occupancy into FIGDIR
(default DIR/figures) in each format, and beside each NAME.data.csv: the
values the figure draws.

Every configuration column that varies across the runs is shown: the hue
(default: scheduler), the x axis of the bars (--x, default the last group
column), or a panel (--facet; the others).  Only the seed is averaged,
and any column named with --average; the window never is.  Each figure
says under its title what it averaged, over how many runs and seeds.
The figures are drawn by the ccsim Python package (python/ccsim); this
script is its command line.  /usr/bin/python3 with Debian's python3-pandas
and python3-matplotlib.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import ccsim  # noqa: E402
from ccsim import figures  # noqa: E402


def note(msg):
    print(f"plot: {msg}", file=sys.stderr)


def columns(values):
    """--x a --x b,c -> [a, b, c]"""
    return [c for v in values or [] for c in v.split(",") if c]


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    p.add_argument("dir", help="a ccsim run, compare or sweep output folder")
    p.add_argument("--out", help="figure folder (default DIR/figures)")
    p.add_argument("--metric", default="gpu_util_cluster_frac",
                   help="summary column of the bars (default gpu_util_cluster_frac)")
    p.add_argument("--baseline", default="ecmp", help="the hue value gains are relative to")
    p.add_argument("--hue", default="scheduler", help="column drawn as colours (scheduler)")
    p.add_argument("--x", action="append", help="column(s) on the bars' x axis")
    p.add_argument("--facet", action="append", help="column(s) drawn as panels")
    p.add_argument("--average", action="append",
                   help="column(s) to average over besides the seed (never the window)")
    p.add_argument("--format", default="png,pdf", help="comma-separated: png, pdf, svg")
    p.add_argument("--only", help="comma-separated figures (default all: "
                   + ", ".join(figures.FIGURES) + ")")
    return p.parse_args(argv)


def main(argv):
    a = parse(argv)
    formats = [f for f in a.format.split(",") if f]
    only = a.only.split(",") if a.only else list(figures.FIGURES)
    bad = [f for f in formats if f not in ("png", "pdf", "svg")] + \
        [f for f in only if f not in figures.FIGURES]
    if bad:
        note(f"unknown format or figure: {', '.join(bad)}")
        return 2
    try:
        res = ccsim.load(a.dir)
        plan = ccsim.plan(res, hue=a.hue, x=columns(a.x), facet=columns(a.facet),
                          average=columns(a.average))
    except ccsim.ResultsError as e:
        note(str(e))
        return 1
    except ccsim.PlotError as e:
        note(str(e))
        return 2
    out = a.out or os.path.join(a.dir, "figures")
    os.makedirs(out, exist_ok=True)
    shown = ", ".join(plan.groups) or "nothing but the hue"
    note(f"{len(res.runs)} run(s); hue {plan.hue}; groups by {shown}; {plan.averaged_note()}")
    written = 0
    for name in only:
        kw = dict(metric=a.metric) if name == "util_bars" else {}
        fig, data = figures.FIGURES[name](res, plan, baseline=a.baseline, **kw)
        if fig is None:
            note(f"{name} skipped: its input is missing in {a.dir}")
            continue
        for ext in formats:
            path = os.path.join(out, f"{name}.{ext}")
            fig.savefig(path, dpi=110)
            print(path)
        data.to_csv(os.path.join(out, f"{name}.data.csv"), index=False)
        figures.plt.close(fig)
        written += 1
    note(f"{written} figure(s) from {len(res.runs)} run(s) in {out}")
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
