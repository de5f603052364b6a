"""columns.py - what the columns of ccsim's result files are.

Not here: reading files (load.py).  CONFIG lists, in the order ccsim
writes them, the summary.csv columns that say how a run was made (its
configuration); everything else in summary.csv is a result.  A test
(python/tests/test_load.py) checks the list against the binary's header.
LABELS are the words and units of docs/usage.md's column dictionary.
"""
import os
import textwrap

CONFIG = [
    "scenario", "topology", "trace", "scheduler", "seed", "mode", "sim_start_s", "sim_end_s",
    "placement", "channels", "collective_model", "priority_levels", "gpu", "alpha_us",
    "buckets", "jitter_sigma", "time_scale", "interval_s", "steady", "fast_forward",
    "scale_hosts", "tor_oversub_ratio", "agg_oversub_ratio", "gpus_total",
]

# The replayed window: runs over different windows are never averaged.
WINDOW = ["sim_start_s", "sim_end_s"]

# run.json's config.sim keys for the CONFIG columns a folder written by an
# older ccsim lacks (the window is always in summary.csv).
SIM_KEYS = {
    "placement": "placement", "channels": "channels", "collective_model": "collective_model",
    "priority_levels": "priority_levels", "gpu": "gpu", "alpha_us": "alpha_us",
    "buckets": "buckets", "jitter_sigma": "jitter_sigma", "time_scale": "time_scale",
    "interval_s": "interval_s", "steady": "steady", "fast_forward": "fast_forward",
    "scale_hosts": "scale_hosts",
}

# Link tiers in the order of the topology (timeseries.csv, links.csv).
TIERS = ["nvlink", "pcie", "host_tor", "tor_agg", "agg_core", "other"]


def _dictionary():
    """docs/usage.md's "## Column dictionary" table: column -> label."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                        "usage.md")
    labels, inside = {}, False
    try:
        with open(path, encoding="utf-8") as f:
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


LABELS = _dictionary()


def label(column, width=40):
    """A column's name in words with its unit (docs/usage.md), else the
    name itself, wrapped to width characters."""
    return textwrap.fill(LABELS.get(column, column), width)
