# Operator-sequence export: a torch.fx trace of a model turned into the
# MDOT graph record (ops in topological order, with costs); no timing here.
"""Export a PyTorch model's training graph as an MDOT operator sequence.

The model is traced with torch.fx in training mode and its shapes are
propagated with one real forward pass (ShapeProp).  Every node that yields a
tensor becomes an operator; nodes that only compute Python values (x.size(),
integer arithmetic on shapes) are dropped and their dependencies passed
through, so predecessors always name operators.

Cost rules (forward pass, float32, N = batch; documented in docs/mdot.md):
  conv      2 * Cin/groups * kh * kw * Cout * Hout * Wout * N (+ output if bias)
  linear    2 * in * out * rows (+ output if bias)
  matmul    2 * M * K * N per batched product
  norm      5 per output element (batch/layer/group/instance norm)
  pool      kernel area per output element; adaptive/global pool: 1 per input
  softmax   3 per output element
  mean/sum  1 per input element
  view-like (view, reshape, flatten, permute, transpose, getitem, chunk,
            split, expand, contiguous, size) 0 flops and 0 bytes
  cat       0 flops, bytes as below
  all other element-wise ops (activations, add, mul, dropout, ...) 1 per
            output element
bytes_read = bytes of the tensor inputs + parameters and buffers it uses
(param_bytes, which do not scale with the batch); bytes_written = bytes of
the tensor outputs.
"""
import dis
import math
import sys

import torch
import torch.fx
from torch.fx.passes.shape_prop import ShapeProp


def _proxy_iter(self):
    """Proxy.__iter__ that finds UNPACK_SEQUENCE by offset (Python 3.11).

    torch 1.13 indexes the caller's instructions by f_lasti // 2, which is
    wrong once 3.11 inserts inline caches, so `a, b = x.chunk(2)` (ShuffleNet)
    failed to trace."""
    frame = sys._getframe(1)
    for inst in dis.get_instructions(frame.f_code):
        if inst.offset == frame.f_lasti and inst.opname == "UNPACK_SEQUENCE":
            return (self[i] for i in range(inst.argval))
    return self.tracer.iter(self)


torch.fx.proxy.Proxy.__iter__ = _proxy_iter

VIEW_TYPES = {"view", "reshape", "flatten", "permute", "transpose", "getitem",
              "chunk", "split", "expand", "contiguous", "unsqueeze", "squeeze",
              "size", "unflatten", "t"}
NORM_TYPES = {"batch_norm", "layer_norm", "group_norm", "instance_norm"}

# Canonical operator names: module classes, functions and methods that do the
# same thing share one type.
MODULE_TYPES = {
    "Conv1d": "conv", "Conv2d": "conv", "Conv3d": "conv",
    "Linear": "linear", "BatchNorm1d": "batch_norm", "BatchNorm2d": "batch_norm",
    "LayerNorm": "layer_norm", "GroupNorm": "group_norm",
    "ReLU": "relu", "ReLU6": "relu6", "GELU": "gelu", "SiLU": "silu",
    "Sigmoid": "sigmoid", "Hardswish": "hardswish", "Hardsigmoid": "hardsigmoid",
    "Tanh": "tanh", "Dropout": "dropout", "MaxPool2d": "max_pool",
    "AvgPool2d": "avg_pool", "AdaptiveAvgPool2d": "adaptive_avg_pool",
    "Flatten": "flatten", "Softmax": "softmax", "Embedding": "embedding",
    "Identity": "identity",
}
FUNCTION_TYPES = {
    "add": "add", "iadd": "add", "sub": "sub", "mul": "mul", "imul": "mul",
    "truediv": "div", "div": "div", "getitem": "getitem", "floordiv": "floordiv",
    "flatten": "flatten", "cat": "cat", "stack": "cat", "relu": "relu", "relu_": "relu",
    "gelu": "gelu", "silu": "silu", "sigmoid": "sigmoid", "hardswish": "hardswish",
    "hardsigmoid": "hardsigmoid", "dropout": "dropout", "softmax": "softmax",
    "adaptive_avg_pool2d": "adaptive_avg_pool", "avg_pool2d": "avg_pool",
    "max_pool2d": "max_pool", "layer_norm": "layer_norm", "matmul": "matmul",
    "bmm": "matmul", "stochastic_depth": "stochastic_depth", "transpose": "transpose",
    "permute": "permute", "reshape": "reshape", "mean": "mean", "sum": "sum",
    "chunk": "chunk", "split": "split", "tanh": "tanh", "rsqrt": "rsqrt",
    "hardswish_": "hardswish", "hardsigmoid_": "hardsigmoid", "relu6": "relu6",
}
METHOD_TYPES = {
    "view": "view", "reshape": "reshape", "flatten": "flatten",
    "permute": "permute", "transpose": "transpose", "contiguous": "contiguous",
    "mean": "mean", "sum": "sum", "size": "size", "chunk": "chunk",
    "split": "split", "relu": "relu", "sigmoid": "sigmoid", "softmax": "softmax",
    "expand": "expand", "unsqueeze": "unsqueeze", "squeeze": "squeeze",
    "add": "add", "mul": "mul", "matmul": "matmul", "t": "t",
    "masked_fill": "masked_fill", "pow": "pow", "div": "div", "sub": "sub",
    "tanh": "tanh", "rsqrt": "rsqrt", "long": "cast", "float": "cast", "half": "cast",
    "bfloat16": "cast", "int": "cast", "to": "cast", "type_as": "cast",
}


def _name(target):
    return getattr(target, "__name__", str(target)).lstrip("_") \
        if not isinstance(target, str) else target


def op_type(node, modules):
    """The canonical type of an fx node; raises on one not in the tables."""
    if node.op == "call_module":
        cls = type(modules[node.target]).__name__
        table, key = MODULE_TYPES, cls
    elif node.op == "call_function":
        table, key = FUNCTION_TYPES, _name(node.target)
    else:
        table, key = METHOD_TYPES, node.target
    if key not in table:
        raise ValueError(f"no operator type for {node.op} {key!r} ({node.name})")
    return table[key]


def _metas(node):
    """Tensor metadata of a node's outputs (a list, empty if none)."""
    meta = node.meta.get("tensor_meta")
    out = []

    def walk(m):
        if hasattr(m, "shape") and hasattr(m, "dtype"):
            out.append(m)
        elif isinstance(m, (list, tuple)):
            for x in m:
                walk(x)
        elif isinstance(m, dict):
            for x in m.values():
                walk(x)
    walk(meta)
    return out


def _nbytes(meta):
    return math.prod(meta.shape) * torch.tensor([], dtype=meta.dtype).element_size()


def _numel(meta):
    return math.prod(meta.shape)


def _module_params(module):
    n = b = 0
    for t in list(module.parameters(recurse=False)) + list(module.buffers(recurse=False)):
        n += t.numel() if t.is_floating_point() else 0
        b += t.numel() * t.element_size()
    return n, b


def _pair(v):
    """A kernel/stride/padding setting as [h, w] (ints), None if not numeric."""
    if isinstance(v, int):
        return [v, v]
    if isinstance(v, (list, tuple)) and all(isinstance(x, int) for x in v):
        return list(v) if len(v) == 2 else [v[0], v[0]]
    return None


def _config(node, kind, modules, ins, outs):
    """Per-sample configuration: kernel, stride, padding, groups, channels,
    input and output shapes (without the batch dimension)."""
    cfg = {}
    if ins:
        cfg["in"] = list(ins[0].shape[1:])
    if outs:
        cfg["out"] = list(outs[0].shape[1:])
    if node.op == "call_module":
        m = modules[node.target]
        k, st, pd = (getattr(m, a, None) for a in ("kernel_size", "stride", "padding"))
        if isinstance(getattr(m, "groups", None), int):
            cfg["g"] = m.groups
        if hasattr(m, "in_channels"):
            cfg["cin"], cfg["cout"] = m.in_channels, m.out_channels
        elif hasattr(m, "in_features"):
            cfg["cin"], cfg["cout"] = m.in_features, m.out_features
    elif kind in ("max_pool", "avg_pool"):
        k = _fn_arg(node, 1, "kernel_size")
        st = node.args[2] if len(node.args) > 2 else node.kwargs.get("stride") or k
        pd = node.args[3] if len(node.args) > 3 else node.kwargs.get("padding", 0)
    else:
        k = st = pd = None
    for key, v in (("k", k), ("s", st), ("p", pd)):
        if _pair(v) is not None:
            cfg[key] = _pair(v)
    return cfg


def _fn_arg(node, index, name):
    """A call_function argument given by position or by keyword."""
    return node.args[index] if len(node.args) > index else node.kwargs[name]


def _flops(kind, node, modules, ins, outs):
    out_n = sum(_numel(m) for m in outs)
    if kind in VIEW_TYPES or kind in ("cat", "identity", "embedding", "floordiv"):
        return 0
    if kind == "conv":
        m = modules[node.target]
        per = 2 * (m.in_channels // m.groups) * math.prod(m.kernel_size)
        return per * out_n + (out_n if m.bias is not None else 0)
    if kind == "linear":
        m = modules[node.target]
        return 2 * m.in_features * out_n + (out_n if m.bias is not None else 0)
    if kind == "matmul":
        k = ins[0].shape[-1]
        return 2 * k * out_n
    if kind in NORM_TYPES:
        return 5 * out_n
    if kind in ("max_pool", "avg_pool"):
        m = modules.get(node.target) if node.op == "call_module" else None
        k = m.kernel_size if m is not None else _fn_arg(node, 1, "kernel_size")
        k = [k, k] if isinstance(k, int) else k
        return math.prod(k) * out_n
    if kind in ("adaptive_avg_pool", "mean", "sum"):
        return _numel(ins[0])
    if kind == "softmax":
        return 3 * out_n
    return out_n


def _attr(gm, target):
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def _tensor_inputs(node, keep):
    """The tensor-producing nodes a node depends on, through dropped ones."""
    seen, preds, stack = set(), [], list(node.all_input_nodes)
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if n in keep or n.op == "placeholder" or n.op == "get_attr":
            preds.append(n)
        else:
            stack.extend(n.all_input_nodes)
    return preds


def trace(model, example):
    """The fx graph module of `model` in training mode, shapes propagated
    with `example`, and the set of nodes that become operators (those that
    call something and yield a tensor)."""
    model.train()
    gm = torch.fx.symbolic_trace(model)
    with torch.no_grad():
        ShapeProp(gm).propagate(example)
    keep = {n for n in gm.graph.nodes
            if n.op in ("call_module", "call_function", "call_method") and _metas(n)}
    return gm, keep


def export(model, example, name="model"):
    """Trace `model` on `example` and return the graph record (a dict)."""
    gm, keep = trace(model, example)
    modules = dict(gm.named_modules())
    batch = example.shape[0]
    index, ops = {}, []
    for node in gm.graph.nodes:
        if node not in keep:
            continue
        kind = op_type(node, modules)
        srcs = _tensor_inputs(node, keep)
        ins = [m for s in srcs if s.op != "get_attr" for m in _metas(s)]
        outs = _metas(node)
        pn, pb = _module_params(modules[node.target]) if node.op == "call_module" else (0, 0)
        for s in srcs:
            if s.op == "get_attr":
                t = _attr(gm, s.target)
                pn += t.numel() if t.is_floating_point() else 0
                pb += t.numel() * t.element_size()
        view = kind in VIEW_TYPES
        op = {"type": kind,
              "config": _config(node, kind, modules, ins, outs),
              "flops": _flops(kind, node, modules, ins, outs),
              "bytes_read": 0 if view else sum(_nbytes(m) for m in ins) + pb,
              "bytes_written": 0 if view else sum(_nbytes(m) for m in outs),
              "param_bytes": 0 if view else pb,
              "params": pn,
              "preds": sorted(index[s] for s in srcs if s in index)}
        index[node] = len(ops)
        ops.append(op)
    return {"name": name, "batch": int(batch),
            "input": list(example.shape[1:]),
            "params": sum(p.numel() for p in model.parameters()),
            "ops": ops}


def scale_batch(graph, batch):
    """The same graph at another batch size (activations scale, params do not)."""
    f = batch / graph["batch"]
    ops = []
    for op in graph["ops"]:
        o = dict(op)
        o["flops"] = op["flops"] * f
        o["bytes_read"] = (op["bytes_read"] - op["param_bytes"]) * f + op["param_bytes"]
        o["bytes_written"] = op["bytes_written"] * f
        ops.append(o)
    return dict(graph, batch=batch, ops=ops)

