"""load.py - a ccsim result folder as tidy pandas DataFrames.

Not here: drawing (figures.py), running the binary (runner.py).

load(path) reads the folder of `ccsim run` (one run), `ccsim compare`
(a folder per scheduler and a combined summary.csv) or `ccsim sweep`
(summary.csv, sweep.json and runs/NAME/).  Results.runs has one row per
run; Results.jobs, .timeseries and .links have one row per job, interval
or (interval, tier) of every run, each with the run's name (`run`) and its
configuration columns merged in, so any of them can be grouped or filtered
by scheduler, topology, channels, seed, ... without a join.
"""
import json
import os

import pandas as pd

from .columns import CONFIG, SIM_KEYS


class ResultsError(Exception):
    """A folder that holds no ccsim results, or a malformed one."""


def _csv(path):
    """path or path.gz as a DataFrame, or None when neither exists."""
    for p in (path, path + ".gz"):
        if os.path.isfile(p):
            return pd.read_csv(p, keep_default_na=False, na_values=[""])
    return None


def _is_run(d):
    return os.path.isfile(os.path.join(d, "run.json")) and (
        os.path.isfile(os.path.join(d, "summary.csv"))
        or os.path.isfile(os.path.join(d, "summary.csv.gz")))


def _swept_columns(path, header):
    """The sweep's swept columns: the len(axes) columns after `run`."""
    with open(os.path.join(path, "sweep.json"), encoding="utf-8") as f:
        sw = json.load(f)
    n = len(sw.get("grid", {})) + sum(len(group) for group in sw.get("zip", []))
    return list(header[1:1 + n])


def _bools(df):
    """"true"/"false" columns as booleans."""
    for c in df.columns:
        if df[c].dtype == object and set(df[c].dropna().unique()) <= {"true", "false"} \
                and df[c].notna().any():
            df[c] = df[c].map({"true": True, "false": False})
    return df


class Results:
    """The results of one folder: runs, and per-run tables on demand."""

    def __init__(self, path, kind, runs, folders, config_columns):
        self.path = path
        self.kind = kind                      # "run", "compare" or "sweep"
        self.runs = runs                      # one row per run, column `run` first
        self.folders = folders                # run name -> its folder
        self.config_columns = config_columns  # the columns that say how a run was made
        self._tables = {}

    def __repr__(self):
        return (f"<ccsim.Results {self.kind} {self.path}: {len(self.runs)} run(s), "
                f"configuration {', '.join(self.config_columns)}>")

    def run_json(self, run):
        """The run.json of one run, as a dict."""
        with open(os.path.join(self.folders[run], "run.json"), encoding="utf-8") as f:
            return json.load(f)

    def table(self, name):
        """NAME.csv of every run, one DataFrame: `run`, the run's
        configuration, then the file's columns (None when no run has it)."""
        if name not in self._tables:
            parts = []
            for run, folder in self.folders.items():
                df = _csv(os.path.join(folder, name + ".csv"))
                if df is not None:
                    df.insert(0, "run", run)
                    parts.append(df)
            if not parts:
                self._tables[name] = None
            else:
                own = pd.concat(parts, ignore_index=True)
                own = own.drop(columns=[c for c in self.config_columns if c in own.columns])
                conf = self.runs[["run"] + self.config_columns]
                self._tables[name] = conf.merge(own, on="run", how="right")
        return self._tables[name]

    @property
    def jobs(self):
        return self.table("jobs")

    @property
    def timeseries(self):
        return self.table("timeseries")

    @property
    def links(self):
        return self.table("links")


def _fill_config(runs, folders):
    """CONFIG columns a folder written by an older ccsim lacks, from each
    run's run.json (config.sim)."""
    missing = [c for c in SIM_KEYS if c not in runs.columns]
    if not missing:
        return runs
    values = {c: [] for c in missing}
    for run in runs["run"]:
        try:
            with open(os.path.join(folders[run], "run.json"), encoding="utf-8") as f:
                sim = json.load(f).get("config", {}).get("sim", {})
        except (OSError, ValueError, AttributeError):
            sim = {}
        for c in missing:
            values[c].append(sim.get(SIM_KEYS[c]))
    for c in missing:
        if any(v is not None for v in values[c]):
            runs[c] = values[c]
    return runs


def _load_sweep(path):
    runs = _csv(os.path.join(path, "summary.csv"))
    if runs is None or "run" not in runs.columns:
        raise ResultsError(f"{path}: a sweep folder without summary.csv (run `ccsim sweep` "
                           "again to write it)")
    swept = _swept_columns(path, list(runs.columns))
    folders = {r: os.path.join(path, "runs", r) for r in runs["run"]}
    return runs, folders, swept


def _load_compare(path, subs):
    runs = _csv(os.path.join(path, "summary.csv"))
    if runs is None:
        runs = pd.concat([_csv(os.path.join(path, s, "summary.csv")) for s in subs],
                         ignore_index=True)
    if "scheduler" not in runs.columns or sorted(runs["scheduler"]) != sorted(subs):
        raise ResultsError(f"{path}: summary.csv does not list the folders {', '.join(subs)}")
    runs.insert(0, "run", runs["scheduler"])
    return runs, {s: os.path.join(path, s) for s in subs}, []


def load(path):
    """The results in path (a run, compare or sweep folder) as Results."""
    path = os.path.normpath(path)
    if not os.path.isdir(path):
        raise ResultsError(f"{path}: not a folder")
    if os.path.isfile(os.path.join(path, "sweep.json")):
        kind, (runs, folders, swept) = "sweep", _load_sweep(path)
    elif _is_run(path):
        runs = _csv(os.path.join(path, "summary.csv"))
        runs.insert(0, "run", os.path.basename(path))
        kind, folders, swept = "run", {os.path.basename(path): path}, []
    else:
        subs = sorted(s for s in os.listdir(path) if _is_run(os.path.join(path, s)))
        if not subs:
            raise ResultsError(f"{path}: no ccsim results (no summary.csv and run.json, here "
                               "or in a subfolder)")
        kind, (runs, folders, swept) = "compare", _load_compare(path, subs)
    folders = {r: os.path.abspath(f) for r, f in folders.items()}  # valid after a chdir
    runs = _bools(_fill_config(runs, folders))
    config = list(dict.fromkeys(c for c in swept + CONFIG if c in runs.columns))
    return Results(path, kind, runs, folders, config)
