# The MDOT dataset as tensors: reading the rows, encoding each graph for the
# networks of model.py, padding rows into batches, and the folds by
# architecture lineage; no training here.
"""Dataset rows -> tensors, batches and lineage folds.

encode(row, d) gives one row's tensors: types [n], feats [n,11] (batch-free,
features.py), loads [n,3] (f, a, p: per-sample FLOPs, activation bytes per
sample, parameter bytes), graph PE [n,d], sequence PE [n,d], and the
predecessor lists.  collate() pads rows to one length and builds, for the
GNN, the mean-aggregation matrices of predecessors and successors.

folds(rows, k): every family belongs to a lineage (zoo.LINEAGE); lineages,
largest first, go to the fold with the fewest rows so far (ties: lowest
fold), so a lineage is never split and no fold sees a relative of the
architectures it is tested on.
"""
import gzip
import json

import torch

import features
import zoo


def load(path):
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def encode(row, d):
    """One row's tensors (float64)."""
    t, f, ld = [], [], []
    batch = row["batch"]
    for op in row["ops"]:
        ti, cfg, load = features.op_features(op, batch)
        t.append(ti)
        f.append(cfg + load)
        ld.append(features.raw_loads(op, batch))
    preds = [op["preds"] for op in row["ops"]]
    return {"types": torch.tensor(t), "feats": torch.tensor(f, dtype=torch.float64),
            "loads": torch.tensor(ld, dtype=torch.float64),
            "pe_graph": torch.tensor(features.graph_pe(preds, d), dtype=torch.float64),
            "pe_seq": torch.tensor(features.seq_pe(len(preds), d), dtype=torch.float64),
            "preds": preds, "batch": float(batch)}


def collate(enc, idx, dtype, pe_kind, gnn=False):
    """Padded batch of rows idx: dict of types, feats, loads, pe, mask,
    batch, and (gnn) graph = (a_in, a_out)."""
    n = max(enc[i]["types"].shape[0] for i in idx)
    d = enc[idx[0]]["pe_graph"].shape[1]
    b = len(idx)
    out = {"types": torch.zeros(b, n, dtype=torch.long),
           "feats": torch.zeros(b, n, features.N_FEAT, dtype=dtype),
           "loads": torch.zeros(b, n, 3, dtype=dtype),
           "pe": torch.zeros(b, n, d, dtype=dtype),
           "mask": torch.zeros(b, n, dtype=torch.bool),
           "batch": torch.tensor([enc[i]["batch"] for i in idx], dtype=dtype)}
    for j, i in enumerate(idx):
        e = enc[i]
        m = e["types"].shape[0]
        out["types"][j, :m] = e["types"]
        out["feats"][j, :m] = e["feats"]
        out["loads"][j, :m] = e["loads"]
        out["pe"][j, :m] = e["pe_seq" if pe_kind == "seq" else "pe_graph"]
        out["mask"][j, :m] = True
    if gnn:
        out["graph"] = adjacency(enc, idx, n, dtype)
    return out


def adjacency(enc, idx, n, dtype):
    """a_in[j, v, u] = 1/|preds(v)| for u a predecessor of v; a_out the same
    for successors."""
    a_in = torch.zeros(len(idx), n, n, dtype=dtype)
    a_out = torch.zeros(len(idx), n, n, dtype=dtype)
    for j, i in enumerate(idx):
        succ = {}
        for v, ps in enumerate(enc[i]["preds"]):
            for u in ps:
                a_in[j, v, u] = 1.0 / len(ps)
                succ.setdefault(u, []).append(v)
        for u, vs in succ.items():
            for v in vs:
                a_out[j, u, v] = 1.0 / len(vs)
    return a_in, a_out


def lineage(row):
    return zoo.LINEAGE[row["family"]]


def folds(rows, k):
    """(list of k lists of row indices, {lineage: fold})."""
    count = {}
    for r in rows:
        count[lineage(r)] = count.get(lineage(r), 0) + 1
    size, fold_of = [0] * k, {}
    for lin in sorted(count, key=lambda x: (-count[x], x)):
        j = min(range(k), key=lambda f: (size[f], f))
        fold_of[lin] = j
        size[j] += count[lin]
    return ([[i for i, r in enumerate(rows) if fold_of[lineage(r)] == j] for j in range(k)],
            fold_of)
