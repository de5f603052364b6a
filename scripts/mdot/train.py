#!/usr/bin/python3
# MDOT training and evaluation: family-held-out cross-validation of MDOT and
# its baselines, then the shipped model and its reference outputs.
"""Train and evaluate MDOT and its baselines on the collected dataset.

usage: train.py [--data FILE] [--epochs N] [--folds K] [--seed S] [--methods M,..]
                [--weights FILE] [--reference FILE] [--eval FILE]
                [--skip-eval] [--skip-ship] [--report EVAL.json ...]

Evaluation: the families are dealt round-robin (sorted by name) into K
folds; each fold is predicted by models trained on the other folds only, so
every row is predicted by a model that never saw its family.  Methods:
  config    least squares of log time on [1, log batch, log params,
            log total FLOPs, log input elements per sample]
  opsum     per-operator log-linear times summed (model.Mdot, 0 layers, no PE)
  seq       Transformer over the topological sequence, sequence-index PE
  mdot      the same with the graph positional encoding
Then MDOT is trained on every row and written as JSON (--weights) with its
predictions on every row in double precision (--reference) for the C test.
Torch runs one thread; times reported are CPU seconds of this process.
The methods may run as separate processes (--methods, --skip-ship, each
with its own --eval) and be merged with --report.
"""
import argparse
import gzip
import json
import math
import os
import random
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import features  # noqa: E402
import model as mdot_model  # noqa: E402

VERSION = "mdot-1"


def load(path):
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def encode(row, d, pe_kind):
    """Per-row tensors: types [n], feats [n,11], pe [n,d]."""
    t, f = [], []
    for op in row["ops"]:
        ti, cfg, load = features.op_features(op)
        t.append(ti)
        f.append(cfg + load)
    preds = [op["preds"] for op in row["ops"]]
    pe = features.graph_pe(preds, d) if pe_kind == "graph" else features.seq_pe(len(preds), d)
    return (torch.tensor(t), torch.tensor(f, dtype=torch.float64),
            torch.tensor(pe, dtype=torch.float64))


def collate(encoded, idx, dtype):
    n = max(encoded[i][0].shape[0] for i in idx)
    d = encoded[idx[0]][2].shape[1]
    types = torch.zeros(len(idx), n, dtype=torch.long)
    feats = torch.zeros(len(idx), n, features.N_CONFIG + features.N_LOAD, dtype=dtype)
    pe = torch.zeros(len(idx), n, d, dtype=dtype)
    mask = torch.zeros(len(idx), n, dtype=torch.bool)
    for j, i in enumerate(idx):
        t, f, p = encoded[i]
        types[j, :len(t)], feats[j, :len(t)], pe[j, :len(t)], mask[j, :len(t)] = t, f, p, True
    return types, feats, pe, mask


def fit_net(rows, layers, pe_kind, epochs, seed, d=32):
    """A Mdot network trained on `rows` (MSE of log time, Adam)."""
    torch.manual_seed(seed)
    rng = random.Random(seed)
    net = mdot_model.Mdot(d=d, layers=layers, pe=pe_kind)
    enc = [encode(r, d, pe_kind) for r in rows]
    allf = torch.cat([e[1] for e in enc])
    net.mu.copy_(allf.mean(0))
    net.sd.copy_(allf.std(0).clamp(min=1e-6))
    y = torch.tensor([math.log(r["time_s"]) for r in rows])
    with torch.no_grad():
        net.out.bias.fill_(float(y.mean()) - sum(math.log(len(r["ops"])) for r in rows) / len(rows))
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]["ops"]))
    batches = [order[i:i + 8] for i in range(0, len(order), 8)]
    for _ in range(epochs):
        rng.shuffle(batches)
        for b in batches:
            types, feats, pe, mask = collate(enc, b, torch.float32)
            loss = ((net(types, feats, pe, mask) - y[b]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
    return net


def predict_net(net, rows):
    """Predicted seconds per row, computed in double precision."""
    net = net.double().eval()
    out = []
    with torch.no_grad():
        for r in rows:
            t, f, p = encode(r, net.d, net.pe)
            out.append(math.exp(float(net(t[None], f[None], p[None],
                                           torch.ones(1, len(t), dtype=torch.bool))[0])))
    net.float()
    return out


def config_x(r):
    flops = sum(op["flops"] for op in r["ops"])
    return [1.0, math.log(r["batch"]), math.log(r["params"]), math.log(flops),
            math.log(math.prod(r["input"]))]


def fit_predict_config(train, test):
    x = torch.tensor([config_x(r) for r in train], dtype=torch.float64)
    y = torch.tensor([[math.log(r["time_s"])] for r in train], dtype=torch.float64)
    w = torch.linalg.lstsq(x, y).solution
    xt = torch.tensor([config_x(r) for r in test], dtype=torch.float64)
    return [math.exp(float(v)) for v in (xt @ w).flatten()]


METHODS = {
    "config": None,
    "opsum": (0, "none"),
    "seq": (2, "seq"),
    "mdot": (2, "graph"),
}


def folds_of(rows, k):
    fams = sorted({r["family"] for r in rows})
    fold = {f: i % k for i, f in enumerate(fams)}
    return [[i for i, r in enumerate(rows) if fold[r["family"]] == j] for j in range(k)], fold


def metrics(rows, pred):
    err = [p - r["time_s"] for p, r in zip(pred, rows)]
    return {"mae_ms": 1e3 * sum(abs(e) for e in err) / len(err),
            "rmse_ms": 1e3 * math.sqrt(sum(e * e for e in err) / len(err)),
            "mape_pct": 100 * sum(abs(e) / r["time_s"] for e, r in zip(err, rows)) / len(err)}


def evaluate(rows, args):
    folds, fold_of = folds_of(rows, args.folds)
    methods = {m: METHODS[m] for m in args.methods}
    preds = {m: [0.0] * len(rows) for m in methods}
    cpu = {}
    for m, spec in methods.items():
        t0 = time.process_time()
        for test in folds:
            train = [r for i, r in enumerate(rows) if i not in set(test)]
            trows = [rows[i] for i in test]
            if spec is None:
                p = fit_predict_config(train, trows)
            else:
                net = fit_net(train, spec[0], spec[1], args.epochs, args.seed)
                p = predict_net(net, trows)
            for i, v in zip(test, p):
                preds[m][i] = v
        cpu[m] = time.process_time() - t0
        print(f"{m}: {metrics(rows, preds[m])} ({cpu[m]:.0f} s CPU)", file=sys.stderr)
    per_family = {m: {} for m in methods}
    for fam in sorted(fold_of):
        idx = [i for i, r in enumerate(rows) if r["family"] == fam]
        for m in methods:
            per_family[m][fam] = metrics([rows[i] for i in idx], [preds[m][i] for i in idx])
    return {"folds": fold_of, "rows": len(rows), "epochs": args.epochs, "seed": args.seed,
            "overall": {m: metrics(rows, preds[m]) for m in methods},
            "per_family": per_family, "cpu_s": cpu,
            "family_of": {r["name"]: r["family"] for r in rows},
            "predictions": {m: {r["name"]: p for r, p in zip(rows, preds[m])} for m in methods}}


def merge(results):
    """One evaluation from runs of different --methods on the same data."""
    out = dict(results[0])
    for key in ("overall", "per_family", "cpu_s", "predictions"):
        out[key] = {}
        for r in results:
            out[key].update(r[key])
    return out


def markdown(result):
    """The evaluation as markdown tables (overall, then MAPE per family)."""
    ms = [m for m in METHODS if m in result["overall"]]
    out = ["| method | MAE (ms) | RMSE (ms) | MAPE (%) | CPU s |", "|---|---|---|---|---|"]
    for m in ms:
        o = result["overall"][m]
        out.append(f"| {m} | {o['mae_ms']:.1f} | {o['rmse_ms']:.1f} | {o['mape_pct']:.1f} "
                   f"| {result['cpu_s'][m]:.0f} |")
    out += ["", "| family (fold) | rows | " + " | ".join(ms) + " |",
            "|---" * (len(ms) + 2) + "|"]
    for fam, fold in sorted(result["folds"].items(), key=lambda x: (x[1], x[0])):
        n = sum(1 for f in result["family_of"].values() if f == fam)
        cells = " | ".join(f"{result['per_family'][m][fam]['mape_pct']:.1f}" for m in ms)
        out.append(f"| {fam} ({fold}) | {n} | {cells} |")
    return "\n".join(out)


def ship(rows, args):
    t0 = time.process_time()
    net = fit_net(rows, 2, "graph", args.epochs, args.seed)
    meta = {"version": VERSION, "device": rows[0]["device"],
            "device_name": rows[0]["device_name"], "rows": len(rows),
            "epochs": args.epochs, "seed": args.seed}
    pred = predict_net(net, rows)
    with open(args.weights, "w") as f:
        json.dump(mdot_model.export_json(net.double(), meta), f, separators=(",", ":"))
    with open(args.reference, "w") as f:
        json.dump({"version": VERSION, "time_s": {r["name"]: p for r, p in zip(rows, pred)}},
                  f, indent=0)
    print(f"shipped model: {metrics(rows, pred)} on its training rows "
          f"({time.process_time() - t0:.0f} s CPU)", file=sys.stderr)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default="scripts/mdot/data/cpu1.jsonl.gz")
    p.add_argument("--epochs", type=int, default=60)
    p.add_argument("--folds", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--weights", default="traces/mdot-cpu1.json")
    p.add_argument("--reference", default="tests/data/mdot-reference.json")
    p.add_argument("--eval", default="scripts/mdot/data/evaluation.json")
    p.add_argument("--methods", default=",".join(METHODS),
                   help="methods to evaluate (comma-separated; default all)")
    p.add_argument("--skip-eval", action="store_true", help="only the shipped model")
    p.add_argument("--skip-ship", action="store_true", help="only the evaluation")
    p.add_argument("--report", nargs="+", metavar="EVAL.json",
                   help="merge evaluation files of separate --methods runs into --eval, "
                        "print the tables, and stop")
    args = p.parse_args(argv)
    args.methods = args.methods.split(",")
    if any(m not in METHODS for m in args.methods):
        p.error(f"--methods: choose among {', '.join(METHODS)}")
    if args.report:
        result = merge([json.load(open(f)) for f in args.report])
        with open(args.eval, "w") as f:
            json.dump(result, f, indent=1)
        print(markdown(result))
        return
    torch.set_num_threads(1)
    rows = load(args.data)
    if not args.skip_eval:
        result = evaluate(rows, args)
        with open(args.eval, "w") as f:
            json.dump(result, f, indent=1)
        print(markdown(result))
    if not args.skip_ship:
        ship(rows, args)


if __name__ == "__main__":
    main()
