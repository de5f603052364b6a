#!/usr/bin/python3
# MDOT evaluation: lineage-held-out cross-validation of MDOT and the
# baselines over several seeds, the evaluation JSON and its markdown tables
# (docs/mdot.md §3); the networks are model.py's, their training train.py's.
"""Cross-validate MDOT against its baselines (one command for every number).

usage: evaluate.py [--data FILE] [--folds K] [--seeds 0,1,2,3,4] [--epochs N]
                   [--methods M,..] [--jobs J] [--eval FILE]
       evaluate.py --report EVAL.json ... [--eval FILE]

Rows are dealt into K folds by architecture lineage (dataset.folds); each
fold is predicted by models trained on the other folds only.  Methods:
  config    least squares of log time on [1, log batch, log params,
            log forward FLOPs, log input elements per sample]
  roofline  the prior alone: T = n tau + F / P + B / BW fitted on the
            training folds (train.fit_prior)
  opsum     the sum of the row's operators each measured alone (forward +
            backward, collect.py), no fitting
  lstm      bidirectional LSTM over the topological sequence
  gnn       DNNPerf-style message passing over the operator graph
  mdot      windowed Transformer with the graph positional encoding
The learned methods share the operator encoding and the batch-affine
readout (model.py) and differ in how an operator sees its context.  Each
learned method runs once per seed; config, roofline and opsum are
deterministic.  --jobs runs (method, seed) pairs in parallel processes.
Results: every prediction, overall and per-family MAE, RMSE and MAPE per
seed, mean and standard deviation over seeds, CPU seconds per run.
"""
import argparse
import json
import math
import multiprocessing
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dataset  # noqa: E402
import train  # noqa: E402

NETS = {
    "lstm": {"ctx": "lstm", "layers": 1},
    "gnn": {"ctx": "gnn", "layers": 3},
    "mdot": train.SHIPPED,
}
METHODS = ["config", "roofline", "opsum"] + list(NETS)


def config_x(r):
    flops = sum(op["flops"] for op in r["ops"])
    return [1.0, math.log(r["batch"]), math.log(r["params"]), math.log(flops),
            math.log(math.prod(r["input"]))]


def fit_predict_config(train_rows, test_rows):
    x = torch.tensor([config_x(r) for r in train_rows], dtype=torch.float64)
    y = torch.tensor([[math.log(r["time_s"])] for r in train_rows], dtype=torch.float64)
    w = torch.linalg.lstsq(x, y).solution
    xt = torch.tensor([config_x(r) for r in test_rows], dtype=torch.float64)
    return [math.exp(float(v)) for v in (xt @ w).flatten()]


def has_op_times(rows):
    return all("time_s" in op for r in rows for op in r["ops"])


def predict_fold(method, train_rows, test_rows, seed, epochs):
    if method == "config":
        return fit_predict_config(train_rows, test_rows)
    if method == "roofline":
        return train.prior_predict(train.fit_prior(train_rows), test_rows)
    if method == "opsum":
        return [sum(op["time_s"] for op in r["ops"]) for r in test_rows]
    net = train.fit_net(train_rows, NETS[method], epochs, seed)
    return train.predict_net(net, test_rows)


def run_one(job):
    """One (method, seed) over every fold: predictions by row name, CPU s."""
    method, seed, data, k, epochs = job
    torch.set_num_threads(1)
    rows = dataset.load(data)
    fold_idx, _ = dataset.folds(rows, k)
    t0 = time.process_time()
    pred = {}
    for test in fold_idx:
        held = set(test)
        tr = [r for i, r in enumerate(rows) if i not in held]
        te = [rows[i] for i in test]
        for r, p in zip(te, predict_fold(method, tr, te, seed, epochs)):
            pred[r["name"]] = p
    cpu = time.process_time() - t0
    print(f"{method} seed {seed}: {train.metrics(rows, [pred[r['name']] for r in rows])} "
          f"({cpu:.0f} s CPU)", file=sys.stderr)
    return {"method": method, "seed": seed, "cpu_s": cpu, "predictions": pred}


def summarise(rows, runs, fold_of, k, epochs):
    """The evaluation record: per method, per seed metrics, mean and sd."""
    fams = sorted({r["family"] for r in rows})
    out = {"rows": len(rows), "folds": k, "epochs": epochs, "fold_of_lineage": fold_of,
           "lineage_of_family": {f: dataset.zoo.LINEAGE[f] for f in fams},
           "rows_of_family": {f: sum(r["family"] == f for r in rows) for f in fams},
           "methods": {}}
    for run in runs:
        m = out["methods"].setdefault(run["method"], {"runs": []})
        pred = [run["predictions"][r["name"]] for r in rows]
        fam = {f: train.metrics([r for r in rows if r["family"] == f],
                                [p for p, r in zip(pred, rows) if r["family"] == f])
               for f in fams}
        m["runs"].append({"seed": run["seed"], "cpu_s": run["cpu_s"],
                          "overall": train.metrics(rows, pred), "per_family": fam,
                          "predictions": run["predictions"]})
    for m in out["methods"].values():
        m["runs"].sort(key=lambda r: r["seed"])
        m["overall"] = {key: mean_sd([r["overall"][key] for r in m["runs"]])
                        for key in ("mae_ms", "rmse_ms", "mape_pct")}
        m["per_family_mape"] = {f: mean_sd([r["per_family"][f]["mape_pct"] for r in m["runs"]])
                                for f in fams}
        m["cpu_s"] = sum(r["cpu_s"] for r in m["runs"])
    return out


def mean_sd(xs):
    return [statistics.mean(xs), statistics.stdev(xs) if len(xs) > 1 else 0.0]


def fmt(ms, digits=1):
    return f"{ms[0]:.{digits}f} ± {ms[1]:.{digits}f}" if ms[1] else f"{ms[0]:.{digits}f}"


def markdown(ev):
    """The evaluation as markdown: overall table, then MAPE per family."""
    ms = [m for m in METHODS if m in ev["methods"]]
    out = ["| method | seeds | MAE (ms) | RMSE (ms) | MAPE (%) | CPU s (all seeds) |",
           "|---|---|---|---|---|---|"]
    for m in ms:
        o = ev["methods"][m]
        out.append(f"| {m} | {len(o['runs'])} | {fmt(o['overall']['mae_ms'])} | "
                   f"{fmt(o['overall']['rmse_ms'])} | {fmt(o['overall']['mape_pct'])} | "
                   f"{o['cpu_s']:.0f} |")
    out += ["", "| family (lineage, fold) | rows | " + " | ".join(ms) + " |",
            "|---" * (len(ms) + 2) + "|"]
    fams = sorted(ev["rows_of_family"],
                  key=lambda f: (ev["fold_of_lineage"][ev["lineage_of_family"][f]], f))
    for f in fams:
        lin = ev["lineage_of_family"][f]
        cells = " | ".join(fmt(ev["methods"][m]["per_family_mape"][f], 0) for m in ms)
        out.append(f"| {f} ({lin}, {ev['fold_of_lineage'][lin]}) | "
                   f"{ev['rows_of_family'][f]} | {cells} |")
    return "\n".join(out)


def merge(evals):
    """Runs of several evaluation files of the same data, as one list."""
    runs = []
    for ev in evals:
        for name, m in ev["methods"].items():
            for r in m["runs"]:
                runs.append({"method": name, "seed": r["seed"], "cpu_s": r["cpu_s"],
                             "predictions": r["predictions"]})
    return runs


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default="scripts/mdot/data/cpu1.jsonl.gz")
    p.add_argument("--folds", type=int, default=4)
    p.add_argument("--seeds", default="0,1,2,3,4")
    p.add_argument("--epochs", type=int, default=train.EPOCHS)
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--eval", default="scripts/mdot/data/evaluation.json")
    p.add_argument("--report", nargs="+", metavar="EVAL.json",
                   help="merge evaluation files (other methods or seeds) into --eval")
    args = p.parse_args(argv)
    rows = dataset.load(args.data)
    _, fold_of = dataset.folds(rows, args.folds)
    if args.report:
        evals = [json.load(open(f)) for f in args.report]
        ev = summarise(rows, merge(evals), fold_of, args.folds, evals[0]["epochs"])
    else:
        methods = args.methods.split(",")
        if any(m not in METHODS for m in methods):
            p.error(f"--methods: choose among {', '.join(METHODS)}")
        if "opsum" in methods and not has_op_times(rows):
            print("opsum left out: the rows have no per-operator times (collect.py "
                  "--no-op-times, or rows of before the operator timing)", file=sys.stderr)
            methods.remove("opsum")
        seeds = [int(s) for s in args.seeds.split(",")]
        jobs = [(m, s if m in NETS else 0, args.data, args.folds, args.epochs)
                for m in methods for s in (seeds if m in NETS else seeds[:1])]
        if args.jobs > 1:
            with multiprocessing.Pool(args.jobs) as pool:
                runs = pool.map(run_one, jobs, chunksize=1)
        else:
            runs = [run_one(j) for j in jobs]
        ev = summarise(rows, runs, fold_of, args.folds, args.epochs)
    with open(args.eval, "w") as f:
        json.dump(ev, f, indent=1)
    print(markdown(ev))


if __name__ == "__main__":
    main()
