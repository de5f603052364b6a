#!/usr/bin/env python3
"""docs_examples.py - docs/usage.md says what ccsim does, checked by
running it (tests/docs_test.sh --examples):

1. every numbered example ("Example N", then a ```console block of
   `$ COMMAND` lines, each followed by the output it prints) is run again
   in a scratch copy of the repository and its output (stdout and stderr)
   compared line by line; only wall-clock times are masked (the `wall_s`
   column of a table, "X s wall"); so is every block of the other docs
   whose commands are all `build/ccsim ...` and which elides nothing
   (shown as "Example 0");
2. every column table of "## Output files" (summary.csv, jobs.csv,
   timeseries.csv with its TIER_ rows, links.csv, flows.csv) lists the
   columns of the header a real run writes, in order, and compare's
   combined summary.csv is summary.csv's columns then the gains named in
   the text.

Usage: tests/docs_examples.py SOURCE_DIR CCSIM_BINARY
"""
import csv
import os
import re
import subprocess
import sys
import tempfile

TIERS = ["nvlink", "pcie", "host_tor", "tor_agg", "agg_core", "other"]


def examples(text):
    """[(number, [(command, expected lines)])] of the numbered examples."""
    out = []
    for m in re.finditer(r"^Example (\d+)\b.*?^```console\n(.*?)^```", text, re.M | re.S):
        steps = []
        for line in m.group(2).splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line)
        out.append((int(m.group(1)), steps))
    return out


def other_examples(text):
    """[(0, [(command, expected lines)])] of the other docs' fenced blocks
    whose every command is build/ccsim's and which elide nothing ("...")."""
    out = []
    for m in re.finditer(r"^```[a-z]*\n(\$ build/ccsim .*?)^```", text, re.M | re.S):
        lines = m.group(1).splitlines()
        if "..." in lines or any(l.startswith("$ ") and not l.startswith("$ build/ccsim ")
                                 for l in lines):
            continue
        steps = []
        for line in lines:
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
        out.append((0, steps))
    return out


def masked(lines):
    """Lines with wall-clock times replaced: "X s wall", and the wall_s
    column of any table whose header names it."""
    out, col = [], None
    for line in lines:
        line = re.sub(r"\b\d+(\.\d+)? s wall\b", "T s wall", line.rstrip())
        words = line.split()
        if "wall_s" in words:
            col = words.index("wall_s")
        elif not words:
            col = None
        elif col is not None and len(words) > col:
            words[col] = "T"
            line = " ".join(words)
        out.append(" ".join(line.split()))
    return out


def scratch(src, ccsim):
    """A folder that looks like the repository after a build: its inputs
    linked, build/ccsim the binary under test, an empty results/."""
    d = tempfile.mkdtemp(prefix="ccsim-docs-")
    for name in ("examples", "scripts", "python", "docs", "traces"):
        os.symlink(os.path.join(src, name), os.path.join(d, name))
    os.makedirs(os.path.join(d, "build"))
    os.symlink(ccsim, os.path.join(d, "build", "ccsim"))
    os.makedirs(os.path.join(d, "results"))
    return d


def check_examples(text, d, others=()):
    fails = 0
    found = examples(text)
    numbers = [n for n, _ in found]
    if numbers != list(range(1, len(found) + 1)) or not found:
        print(f"FAIL: examples numbered {numbers}, expected 1..{len(found)}")
        fails += 1
    for n, steps in found + list(others):
        for cmd, want in steps:
            p = subprocess.run(["bash", "-c", cmd], cwd=d, capture_output=True, text=True)
            got = (p.stdout + p.stderr).splitlines()
            if masked(got) != masked(want):
                print(f"FAIL: Example {n}: `{cmd}` printed:\n" + "\n".join(got)
                      + "\n-- docs/usage.md says:\n" + "\n".join(want))
                fails += 1
            else:
                print(f"ok   Example {n}: {cmd}")
    return fails


def table(text, name):
    """The backquoted first cells of the table after **name**."""
    start = text.index(f"**{name}**")
    block = text[start:].split("\n\n|", 1)[1].split("\n\n", 1)[0]
    cols = []
    for line in ("|" + block).splitlines():
        m = re.match(r"\| `([^`]+)` \|", line)
        if m:
            cols += [m.group(1).replace("TIER_", t + "_") for t in TIERS] \
                if m.group(1).startswith("TIER_") else [m.group(1)]
    return cols


def header(path):
    with open(path, newline="") as f:
        return next(csv.reader(f))


def check_columns(text, d):
    fails = 0
    run = os.path.join(d, "results", "ex1-timeline")
    for name in ("summary.csv", "jobs.csv", "timeseries.csv", "links.csv", "flows.csv"):
        doc, real = table(text, name), header(os.path.join(run, name))
        if doc != real:
            print(f"FAIL: {name}: docs/usage.md lists\n  {doc}\nthe binary writes\n  {real}")
            fails += 1
        else:
            print(f"ok   {name}: {len(real)} columns as documented")
    combined = header(os.path.join(d, "results", "ex1-compare", "summary.csv"))
    gains = combined[len(header(os.path.join(run, "summary.csv"))):]
    summary_doc = table(text, "summary.csv")
    if combined[:len(summary_doc)] != summary_doc or not gains or \
            any(f"`{g}`" not in text for g in gains):
        print(f"FAIL: compare's summary.csv: {combined}")
        fails += 1
    else:
        print(f"ok   compare's summary.csv: summary.csv's columns, then {', '.join(gains)}")
    return fails


def main(src, ccsim):
    with open(os.path.join(src, "docs", "usage.md"), encoding="utf-8") as f:
        text = f.read()
    d = scratch(os.path.realpath(src), os.path.realpath(ccsim))
    try:
        others = []
        for name in sorted(os.listdir(os.path.join(src, "docs"))):
            if name.endswith(".md") and name != "usage.md":
                with open(os.path.join(src, "docs", name), encoding="utf-8") as f:
                    others += other_examples(f.read())
        fails = check_examples(text, d, others)
        fails += check_columns(text, d)
    finally:
        subprocess.run(["rm", "-rf", d])
    print(f"docs examples: {fails} failure(s)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
