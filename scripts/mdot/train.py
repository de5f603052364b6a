#!/usr/bin/python3
# MDOT training: the roofline prior, the networks of model.py, and the
# shipped weights with their reference outputs; the cross-validated
# comparison with the baselines is evaluate.py.
"""Train MDOT on a device's dataset and write its weights.

usage: train.py [--data FILE] [--epochs N] [--seed S] [--weights FILE]
                [--reference FILE]

Trains the MDOT network (model.py: windowed Transformer with the graph
positional encoding, readout affine in the batch) on every row of --data and
writes it as JSON (--weights, default traces/mdot-DEVICE.json, DEVICE from the
rows) with the training range the predictor warns outside of, and its
predictions on every row in double precision (--reference, default
tests/data/mdot-reference-DEVICE.json) for the C test.
Torch runs one thread; times reported are CPU seconds of this process.
"""
import argparse
import math
import os
import random
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dataset  # noqa: E402
import features  # noqa: E402
import model as mdot_model  # noqa: E402

VERSION = "mdot-2"
# the shipped network's settings (docs/mdot.md §2)
BATCH_ROWS = 8  # rows per mini-batch
EPOCHS = 25
# d = 16 keeps the 5-seed evaluation within the shared machine's CPU budget
D_MODEL = 16
SHIPPED = {"ctx": "transformer", "pe": "graph", "layers": 2, "window": 16, "heads": 2, "ffn": 32}


def totals(row):
    """(operators, forward FLOPs, bytes read + written) of a row."""
    ops = row["ops"]
    return (len(ops), sum(o["flops"] for o in ops),
            sum(o["bytes_read"] + o["bytes_written"] for o in ops))


def fit_prior(rows):
    """(tau s, P FLOP/s, BW bytes/s) minimising the squared log error of
    T = n tau + F / P + B / BW over rows (n operators, F FLOPs, B bytes)."""
    x = torch.tensor([totals(r) for r in rows], dtype=torch.float64)
    y = torch.tensor([math.log(r["time_s"]) for r in rows], dtype=torch.float64)
    theta = torch.tensor([math.log(1e-5), math.log(1e-10), math.log(1e-10)],
                         dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([theta], max_iter=2000, tolerance_grad=1e-14,
                            tolerance_change=1e-16, line_search_fn="strong_wolfe")

    def loss():
        opt.zero_grad()
        pred = torch.log((x * torch.exp(theta)).sum(1))
        v = ((pred - y) ** 2).mean()
        v.backward()
        return v
    opt.step(loss)
    t = torch.exp(theta.detach())
    return float(t[0]), float(1 / t[1]), float(1 / t[2])


def prior_predict(prior, rows):
    tau, p, bw = prior
    return [n * tau + f / p + b / bw for n, f, b in map(totals, rows)]


def make_net(spec, d=D_MODEL):
    return mdot_model.Mdot(d=d, heads=spec.get("heads", 2), ffn=spec.get("ffn", 2 * d),
                           layers=spec["layers"], window=spec.get("window", 0),
                           ctx=spec["ctx"], pe=spec.get("pe", "none"))


def graph_groups(rows, enc):
    """Rows grouped by their network input (enc: the rows' encodings): the
    rows of one model at one input size differ only in the batch, and every
    network input is batch-free, so each group's corrections are computed
    once.  Rows whose encodings differ all the same stay apart: an
    operator whose batch dimension is not the first (after a permute in the
    encoders' attention) keeps the batch in its per-sample shape.  [[row
    indices], ...] in first-seen order."""
    groups = {}
    for i, r in enumerate(rows):
        key = (r.get("variant", r["name"]), r.get("size"),
               enc[i]["feats"].numpy().tobytes(), enc[i]["loads"].numpy().tobytes())
        groups.setdefault(key, []).append(i)
    return list(groups.values())


def fit_net(rows, spec, epochs, seed, d=D_MODEL, enc=None):
    """A model.Mdot of settings spec trained on rows (MSE of log time, Adam,
    mini-batches of BATCH_ROWS graphs of similar length, each with all its
    rows); enc: the rows' encodings."""
    torch.manual_seed(seed)
    rng = random.Random(seed)
    net = make_net(spec, d)
    enc = enc or [dataset.encode(r, d) for r in rows]
    groups = graph_groups(rows, enc)
    genc = [enc[g[0]] for g in groups]
    allf = torch.cat([e["feats"] for e in enc])
    net.mu.copy_(allf.mean(0))
    net.sd.copy_(allf.std(0).clamp(min=1e-6))
    net.prior.copy_(torch.tensor(fit_prior(rows)))
    y = torch.tensor([math.log(r["time_s"]) for r in rows])
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    order = sorted(range(len(groups)), key=lambda g: len(rows[groups[g][0]]["ops"]))
    batches = [order[i:i + BATCH_ROWS] for i in range(0, len(order), BATCH_ROWS)]
    gnn = spec["ctx"] == "gnn"
    data = {}
    for b in batches:
        members = [(j, i) for j, g in enumerate(b) for i in groups[g]]
        data[tuple(b)] = (dataset.collate(genc, b, torch.float32, spec.get("pe"), gnn),
                          torch.tensor([j for j, _ in members]),
                          torch.tensor([rows[i]["batch"] for _, i in members], dtype=torch.float32),
                          y[[i for _, i in members]])
    for _ in range(epochs):
        rng.shuffle(batches)
        for b in batches:
            c, which, nb, target = data[tuple(b)]
            fixed, per_sample = net.affine(c["types"], c["feats"], c["pe"], c["mask"],
                                           c["loads"], c.get("graph"))
            pred = torch.log(fixed[which] + per_sample[which] * nb)
            loss = ((pred - target) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
    return net


def predict_net(net, rows, enc=None):
    """Predicted seconds per row, in double precision (one estimate per
    graph, evaluated at each of its rows' batches)."""
    net = net.double().eval()
    out = [0.0] * len(rows)
    enc = enc or [dataset.encode(r, net.d) for r in rows]
    with torch.no_grad():
        for g in graph_groups(rows, enc):
            c = dataset.collate([enc[g[0]]], [0], torch.float64, net.pe, net.ctx == "gnn")
            fixed, per_sample = net.affine(c["types"], c["feats"], c["pe"], c["mask"],
                                           c["loads"], c.get("graph"))
            for i in g:
                out[i] = float(fixed[0] + per_sample[0] * rows[i]["batch"])
    net.float()
    return out


def training_range(rows):
    """What the predictor warns outside of: batch, operator count and
    forward FLOPs per iteration ([min, max]) and the operators per type."""
    t = [totals(r) for r in rows]
    types = {v: 0 for v in features.VOCAB}
    for r in rows:
        for op in r["ops"]:
            types[op["type"]] += 1
    return {"batch": [min(r["batch"] for r in rows), max(r["batch"] for r in rows)],
            "ops": [min(x[0] for x in t), max(x[0] for x in t)],
            "flops": [min(x[1] for x in t), max(x[1] for x in t)],
            "type_ops": types}


def metrics(rows, pred):
    err = [p - r["time_s"] for p, r in zip(pred, rows)]
    return {"mae_ms": 1e3 * sum(abs(e) for e in err) / len(err),
            "rmse_ms": 1e3 * math.sqrt(sum(e * e for e in err) / len(err)),
            "mape_pct": 100 * sum(abs(e) / r["time_s"] for e, r in zip(err, rows)) / len(err)}


def ship(rows, args):
    import json
    t0 = time.process_time()
    net = fit_net(rows, SHIPPED, args.epochs, args.seed)
    meta = {"version": VERSION, "device": rows[0]["device"],
            "device_name": rows[0]["device_name"], "precision": rows[0].get("precision", "fp32"),
            "rows": len(rows), "epochs": args.epochs, "seed": args.seed,
            "range": training_range(rows)}
    pred = predict_net(net, rows)
    with open(args.weights, "w") as f:
        json.dump(mdot_model.export_json(net.double(), meta), f, separators=(",", ":"))
    with open(args.reference, "w") as f:
        json.dump({"version": VERSION, "device": meta["device"],
                   "time_s": {r["name"]: p for r, p in zip(rows, pred)}}, f, indent=0)
    print(f"shipped model: {metrics(rows, pred)} on its training rows "
          f"({time.process_time() - t0:.0f} s CPU)", file=sys.stderr)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default="scripts/mdot/data/cpu1.jsonl.gz")
    p.add_argument("--epochs", type=int, default=EPOCHS)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--weights", help="default traces/mdot-DEVICE.json")
    p.add_argument("--reference", help="default tests/data/mdot-reference-DEVICE.json")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    rows = dataset.load(args.data)
    devices = {r["device"] for r in rows}
    if len(devices) != 1:
        p.error(f"--data: rows of several devices ({', '.join(sorted(devices))}); "
                "weights are per device")
    device = devices.pop()
    args.weights = args.weights or f"traces/mdot-{device}.json"
    args.reference = args.reference or f"tests/data/mdot-reference-{device}.json"
    ship(rows, args)


if __name__ == "__main__":
    main()
