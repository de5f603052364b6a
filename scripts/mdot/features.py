# MDOT operator features and positional encodings (the Python reference the
# C module traces/mdot/ mirrors); no model or training here.
"""Operator encoding inputs and positional encodings of an MDOT graph.

Every operator gives three parts (docs/mdot.md §2), none of which depends
on the batch size:
  type    an index into VOCAB (the canonical types of opgraph.py);
  config  8 numbers: log1p of kernel area, stride (height), groups, input
          channels/features, output channels/features, per-sample input and
          output elements, parameter count;
  load    3 numbers: log1p of FLOPs per sample f, activation bytes per
          sample a (bytes read and written less the parameter bytes, over
          the batch) and parameter bytes p.
Missing configuration entries count as 0.  raw_loads gives (f, a, p)
themselves, which the readout multiplies by the batch (model.py).

Graph positional encoding: operator v's depth (longest path from an operator
without predecessors) and height (longest path to one without successors),
each written as a sinusoid in half of the d dimensions:
  pe[2i]   = sin(x / 10000^(2i/h)),  pe[2i+1] = cos(x / 10000^(2i/h)),
with h = d/2, x = depth for the first half and x = height for the second.
Parallel branches get the same encoding; sequence position plays no part.
The ablation ("seq") encodes the position in the sequence in all d dims.
"""
import math

import opgraph

VOCAB = sorted(set(opgraph.MODULE_TYPES.values()) | set(opgraph.FUNCTION_TYPES.values())
               | set(opgraph.METHOD_TYPES.values()))
N_CONFIG, N_LOAD = 8, 3
N_FEAT = N_CONFIG + N_LOAD


def raw_loads(op, batch):
    """(FLOPs per sample, activation bytes per sample, parameter bytes)."""
    pb = op.get("param_bytes", 0)
    act = op["bytes_read"] - pb + op["bytes_written"]
    return [op["flops"] / batch, act / batch, pb]


def op_features(op, batch):
    """(type index, config list, load list) of one operator record of a
    graph recorded at `batch`."""
    c = op.get("config", {})
    k = c.get("k", [0, 0])
    cfg = [k[0] * k[1], c.get("s", [0])[0], c.get("g", 0), c.get("cin", 0),
           c.get("cout", 0), math.prod(c.get("in", [0])), math.prod(c.get("out", [0])),
           op.get("params", 0)]
    return (VOCAB.index(op["type"]), [math.log1p(x) for x in cfg],
            [math.log1p(x) for x in raw_loads(op, batch)])


def depth_height(preds):
    """Longest path from a source and to a sink, per operator (preds in
    topological order: every predecessor index is smaller)."""
    n = len(preds)
    depth, height = [0] * n, [0] * n
    for v in range(n):
        for u in preds[v]:
            depth[v] = max(depth[v], depth[u] + 1)
    for v in reversed(range(n)):
        for u in preds[v]:
            height[u] = max(height[u], height[v] + 1)
    return depth, height


def sinusoid(x, dims):
    out = []
    for i in range(dims // 2):
        f = x / 10000 ** (2 * i / dims)
        out += [math.sin(f), math.cos(f)]
    return out


def graph_pe(preds, d):
    depth, height = depth_height(preds)
    return [sinusoid(a, d // 2) + sinusoid(b, d // 2) for a, b in zip(depth, height)]


def seq_pe(n, d):
    return [sinusoid(i, d) for i in range(n)]
