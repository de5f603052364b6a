#!/usr/bin/python3
# The tables of docs/mdot.md that come from files of the repository: the
# operator types with their training counts (from the weights), the graph
# library (from traces/graphs/), and the dataset's composition.
"""Print docs/mdot.md's generated tables (markdown) on stdout.

usage: doc_tables.py types|library|dataset [--weights traces/mdot-cpu1.json]
                     [--data scripts/mdot/data/cpu1.jsonl.gz]
"""
import argparse
import collections
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opgraph  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def rule(t):
    """The FLOP rule's row of docs/mdot.md §1 for type t."""
    special = {"conv": "conv", "linear": "linear", "matmul": "matmul", "softmax": "softmax",
               "max_pool": "pool", "avg_pool": "pool", "adaptive_avg_pool": "per input",
               "mean": "per input", "sum": "per input"}
    if t in opgraph.VIEW_TYPES:
        return "view (0)"
    if t in opgraph.NORM_TYPES:
        return "norm"
    if t in ("cat", "identity", "embedding", "floordiv"):
        return "0"
    return special.get(t, "1 per output")


def types(weights):
    counts = weights["range"]["type_ops"]
    out = ["| type | FLOP rule | training operators |", "|---|---|---|"]
    for t in weights["vocab"]:
        n = counts.get(t, 0)
        out.append(f"| `{t}` | {rule(t)} | {n:,}{'' if n else ' (unseen: warned)'} |")
    return "\n".join(out)


def library():
    lib = json.load(open(os.path.join(ROOT, "traces", "graphs", "library.json")))["graphs"]
    cat = {m["name"]: m for m in json.load(open(os.path.join(ROOT, "traces", "models.json")))
           ["models"]}
    out = ["| catalog model | graph file | operators | parameters | batch | tp · pp | note |",
           "|---|---|---|---|---|---|---|"]
    for name, e in lib.items():
        if e["file"] is None:
            out.append(f"| {name} | none | | | | | {e['why']} |")
            continue
        with gzip.open(os.path.join(ROOT, "traces", "graphs", e["file"]), "rt") as f:
            g = json.load(f)
        m = cat[name]
        out.append(f"| {name} | `{e['file']}` | {len(g['ops']):,} | {g['params'] / 1e6:,.1f} M "
                   f"| {e['batch']} | {m['tp']} · {m['pp']} | {e['note']} |")
    return "\n".join(out)


def dataset(path):
    with gzip.open(path, "rt") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    fam = collections.Counter(r["family"] for r in rows)
    ops = [len(r["ops"]) for r in rows]
    t = [r["time_s"] for r in rows]
    b = [r["batch"] for r in rows]
    return (f"{len(rows)} rows from {len(fam)} families ("
            + ", ".join(f"{f} {n}" for f, n in fam.most_common()) + f"); {sum(ops):,} operators, "
            f"{min(ops)}–{max(ops)} per graph; batches {min(b)}–{max(b)}; iteration times "
            f"{min(t) * 1e3:.0f} ms to {max(t):.2f} s")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=("types", "library", "dataset"))
    p.add_argument("--weights", default=os.path.join(ROOT, "traces", "mdot-cpu1.json"))
    p.add_argument("--data", default=os.path.join(ROOT, "scripts", "mdot", "data",
                                                  "cpu1.jsonl.gz"))
    args = p.parse_args(argv)
    if args.what == "types":
        with open(args.weights) as f:
            print(types(json.load(f)))
    elif args.what == "library":
        print(library())
    else:
        print(dataset(args.data))


if __name__ == "__main__":
    main()
