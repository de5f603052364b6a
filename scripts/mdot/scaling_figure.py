#!/usr/bin/python3
# The batch-scaling figure of docs/mdot.md §2: MDOT's predicted iteration
# time against the batch, 1 to 4096, for three models, next to a line
# proportional to their FLOPs; the predictions come from `ccsim predict`.
"""Plot predicted time per iteration against batch size (docs/img/mdot-batch-scaling.png).

usage: scaling_figure.py [--ccsim build/ccsim] [--out docs/img/mdot-batch-scaling.png]

For each model (the docs' example ResNet-18 graph, and ResNet-50 and
GPT-350M from the graph library, traces/graphs/) `ccsim predict` gives the
prediction as fixed seconds + seconds per sample (docs/mdot.md §2), so
T(N) = fixed + per_sample N is drawn for N = 1 .. 4096 with, dashed, the
FLOP-proportional line through T at the largest training batch (time per
FLOP held constant).  The shaded band is the training range of batches.
Also prints the numbers behind the figure.
"""
import argparse
import json
import os
import re
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = [("ResNet-18 (example graph)", "examples/graphs/resnet18-b2-s64.json"),
          ("ResNet-50 (224 px)", "traces/graphs/resnet50.json.gz"),
          ("GPT-350M (2048 tokens)", "traces/graphs/gpt-350m.json.gz")]
BATCHES = [2 ** k for k in range(13)]


def predict(ccsim, path):
    """(fixed_s, per_sample_s) from `ccsim predict`."""
    out = subprocess.run([ccsim, "predict", os.path.join(ROOT, path)], check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r"= ([0-9.e+-]+) s \+ ([0-9.e+-]+) s per sample", out)
    return float(m.group(1)), float(m.group(2))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ccsim", default=os.path.join(ROOT, "build", "ccsim"))
    p.add_argument("--out", default=os.path.join(ROOT, "docs", "img", "mdot-batch-scaling.png"))
    args = p.parse_args(argv)
    with open(os.path.join(ROOT, "traces", "mdot-cpu1.json")) as f:
        lo, hi = json.load(f)["range"]["batch"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.axvspan(lo, hi, color="0.9", label=f"training batches ({lo}-{hi})")
    print("| model | fixed s | s per sample | T(1) | T(16) | T(4096) | T(4096) / T(16) |")
    print("|---|---|---|---|---|---|---|")
    for (label, path), color in zip(MODELS, ("C0", "C1", "C2")):
        fixed, per = predict(args.ccsim, path)
        t = [fixed + per * b for b in BATCHES]
        ref = fixed + per * hi
        ax.plot(BATCHES, t, "o-", color=color, ms=3, label=f"{label}: MDOT")
        ax.plot(BATCHES, [ref * b / hi for b in BATCHES], "--", color=color, lw=1,
                label=f"{label}: FLOP-proportional")
        print(f"| {label} | {fixed:.4g} | {per:.4g} | {t[0]:.4g} | {fixed + 16 * per:.4g} | "
              f"{t[-1]:.4g} | {t[-1] / (fixed + 16 * per):.1f} |")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("batch size (samples per iteration)")
    ax.set_ylabel("predicted seconds per training iteration (cpu1)")
    ax.set_title("MDOT-2 on one CPU core: time against batch")
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(True, which="both", lw=0.3)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
