"""report.py - one self-contained HTML page on a result folder.

Not here: the figures (figures.py) and the sentence (why.py).

The page holds, with nothing to fetch (figures are inline PNG): what every
run shares (the configuration that does not vary), the summary table (one
row per group and hue, the mean over the averaged runs, with the gain over
the baseline), the "why" sentence of each group that has ecmp and another
scheduler, and the four figures with what each averaged.
"""
import base64
import html
import io
import os

from . import figures, why
from .groups import describe, plan as make_plan
from .load import load

METRICS = ["gpu_util_allocated_frac", "gain_allocated_vs_ecmp_frac", "gpu_util_cluster_frac",
           "gain_vs_ecmp_frac", "mean_slowdown", "p99_slowdown", "jobs", "jobs_at_risk",
           "jobs_slowed_by_others"]

STYLE = """body{font-family:sans-serif;max-width:1200px;margin:2em auto;color:#222}
table{border-collapse:collapse;font-size:13px;margin:1em 0}
td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}
th{background:#f0f0f0}td.l,th.l{text-align:left}img{max-width:100%}
p.why{background:#f7f7e8;padding:.6em;border-left:4px solid #c9b458}
p.note{font-size:12px;color:#555}"""


def _table(df, left):
    """An HTML table of df, the columns in left aligned left."""
    head = "".join(f'<th class="{"l" if c in left else ""}">{html.escape(str(c))}</th>'
                   for c in df.columns)
    rows = []
    for _, r in df.iterrows():
        cells = []
        for c in df.columns:
            v = r[c]
            text = f"{v:.4f}" if isinstance(v, float) else str(v)
            cells.append(f'<td class="{"l" if c in left else ""}">{html.escape(text)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _constant(res, plan):
    rows = [(c, res.runs[c].iloc[0]) for c in res.config_columns
            if c not in plan.groups and c != plan.hue and c not in plan.averaged
            and res.runs[c].nunique(dropna=False) == 1]
    body = "".join(f'<tr><td class="l">{html.escape(c)}</td><td class="l">'
                   f"{html.escape(str(v))}</td></tr>" for c, v in rows)
    return f"<table><tr><th class='l'>setting</th><th class='l'>value</th></tr>{body}</table>"


def summary(res, plan):
    """One row per group and hue: the mean of METRICS over the averaged
    runs, and how many runs each row averages."""
    keys = plan.groups + [plan.hue]
    cols = [m for m in METRICS if m in plan.runs.columns]
    g = plan.runs.groupby(keys, sort=False, dropna=False)
    table = g[cols].mean().reset_index()
    table.insert(len(keys), "runs", g.size().to_numpy())
    return table


def _figure(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    figures.plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="figure" src="data:image/png;base64,{data}">'


def _whys(res, plan):
    out = []
    for key, runs in plan.cells(plan.groups):
        s = why.sentence(res, runs) if plan.hue == "scheduler" else None
        if s:
            head = f"<b>{html.escape(describe(plan.groups, key))}</b>: " if plan.groups else ""
            out.append(f'<p class="why">{head}{html.escape(s)}</p>')
    return "".join(out)


def write_report(path, out=None, baseline="ecmp"):
    """Write the page for the results in path; returns the page's path."""
    res = load(path)
    plan = make_plan(res)
    out = out or os.path.join(path, "report.html")
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>ccsim: "
             f"{html.escape(path)}</title><style>{STYLE}</style></head><body>",
             f"<h1>ccsim results: {html.escape(path)}</h1>",
             f"<p>{html.escape(res.kind)} folder, {len(res.runs)} run(s); colours by "
             f"{html.escape(plan.hue)}; groups by {html.escape(', '.join(plan.groups) or '-')}; "
             f"{html.escape(plan.averaged_note())}.</p>",
             "<h2>What every run shares</h2>", _constant(res, plan),
             "<h2>Summary</h2>", _table(summary(res, plan), plan.groups + [plan.hue]),
             "<p class='note'>gain_*_vs_ecmp_frac: utilization over ecmp's with the same other "
             "settings, minus 1; means over the averaged runs.</p>",
             _whys(res, plan), "<h2>Figures</h2>"]
    for name, draw in figures.FIGURES.items():
        fig, _ = draw(res, plan, baseline=baseline)
        if fig is not None:
            parts.append(f"<h3>{name}</h3>{_figure(fig)}")
    parts.append("</body></html>\n")
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(parts))
    os.replace(tmp, out)
    return out
