#!/usr/bin/python3
# Write one model's MDOT operator graph (for `ccsim predict` or a scenario's
# {"graph": FILE}); no timing, see collect.py for the dataset.
"""Export the operator graph of a torchvision model, a decoder language
model, or a Python-defined one.

usage: export_graph.py MODEL [--batch N] [--size S] [--classes C] -o FILE

MODEL is a torchvision model name (resnet50, efficientnet_b0, ...);
gpt:DIM:LAYERS:HEADS or llama:DIM:LAYERS:HEADS, a decoder language model of
the zoo's layout (scripts/mdot/zoo.py) over --size tokens with a vocabulary
of --classes, built on PyTorch's meta device (shapes only, so any size
costs no memory); or PATH.py:FUNCTION, a function returning an nn.Module
that takes an image batch (N, 3, S, S).  The model is built with random
weights; the graph is traced in training mode at --batch (the predictor
rescales to other batches).
"""
import argparse
import importlib.util
import json
import os
import sys

import torch
import torchvision.models as tvm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opgraph  # noqa: E402
import zoo  # noqa: E402

DECODERS = ("gpt", "llama")


def decoder(spec, size, classes):
    """(model on the meta device, token input) of gpt|llama:DIM:LAYERS:HEADS."""
    kind, *dims = spec.split(":")
    if len(dims) != 3 or not all(d.isdigit() and int(d) > 0 for d in dims):
        sys.exit(f"export_graph.py: {spec}: expected {kind}:DIM:LAYERS:HEADS (positive integers)")
    dim, layers, heads = map(int, dims)
    if dim % heads:
        sys.exit(f"export_graph.py: {spec}: DIM must be a multiple of HEADS")
    model = zoo.DecoderLM(kind, dim, layers, heads, size, classes, device="meta")
    return model, torch.zeros(1, size, dtype=torch.long, device="meta")


def build(spec, classes):
    if ":" in spec:
        path, func = spec.rsplit(":", 1)
        mod_spec = importlib.util.spec_from_file_location("user_model", path)
        mod = importlib.util.module_from_spec(mod_spec)
        mod_spec.loader.exec_module(mod)
        return getattr(mod, func)()
    if not hasattr(tvm, spec):
        sys.exit(f"export_graph.py: {spec}: not a torchvision model (nor PATH.py:FUNCTION)")
    return getattr(tvm, spec)(num_classes=classes)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--classes", type=int, default=1000)
    p.add_argument("-o", "--out", required=True)
    args = p.parse_args(argv)
    if args.batch < 1 or args.size < 1:
        p.error("--batch and --size must be positive")
    torch.manual_seed(0)
    name = f"{os.path.basename(args.model).replace(':', '-')}-b{args.batch}-s{args.size}"
    if args.model.split(":")[0] in DECODERS:
        model, x = decoder(args.model, args.size, args.classes)
        x = x.expand(args.batch, args.size)
    else:
        model = build(args.model, args.classes)
        x = torch.randn(args.batch, 3, args.size, args.size)
    graph = opgraph.export(model, x, name=name)
    with open(args.out, "w") as f:
        json.dump(graph, f, separators=(",", ":"))
    print(f"{args.out}: {len(graph['ops'])} operators, batch {args.batch}", file=sys.stderr)


if __name__ == "__main__":
    main()
