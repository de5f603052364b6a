#!/usr/bin/python3
# MDOT dataset collection: trace every zoo model, time whole training
# iterations, write gzip JSON lines; the cost rules live in opgraph.py.
"""Collect the MDOT dataset (operator sequences + measured iteration times).

usage: collect.py [--quick] [--out FILE.jsonl.gz] [--device NAME]
                  [--warmup N] [--repeat N] [--family F] [--graph-only]

For every (model, batch, size) of the zoo (zoo.DEFAULT, or zoo.QUICK with
--quick) it writes one JSON line: the operator sequence (opgraph.export) and
the median CPU time of --repeat training iterations (forward, cross-entropy
loss, backward, SGD step with momentum) after --warmup untimed ones.  Timing
uses one intra-op thread and the calling thread's CPU time
(time.thread_time), so a loaded machine slows the wall clock but not the
figure.  Models are visited in rounds (every model's first input, then every
model's second, ...) so that --max-minutes, which starts no row after that
much wall-clock time, still leaves every family covered.  Rows already in
FILE.part (an interrupted run) are kept and skipped; FILE is written (gzip,
atomically) at the end.
"""
import argparse
import gzip
import json
import os
import platform
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opgraph  # noqa: E402
import zoo  # noqa: E402


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def time_iterations(model, x, warmup, repeat, gen):
    """CPU seconds (this thread) of `repeat` training iterations, after warm-up."""
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    labels = torch.randint(0, zoo.NUM_CLASSES, (x.shape[0],), generator=gen)
    loss_fn = torch.nn.CrossEntropyLoss()
    times = []
    for i in range(warmup + repeat):
        t0 = time.thread_time()
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), labels)
        loss.backward()
        opt.step()
        if i >= warmup:
            times.append(time.thread_time() - t0)
    return times


def collect_one(family, variant, builder, batch, size, args, gen):
    torch.manual_seed(0)
    model = builder()
    x = zoo.example_input(family, batch, size, gen)
    rec = opgraph.export(model, x, name=f"{variant}-b{batch}-s{size}")
    rec.update(family=family, variant=variant, size=size, device=args.device)
    if not args.graph_only:
        times = time_iterations(model, x, args.warmup, args.repeat, gen)
        rec["times_s"] = [round(t, 6) for t in times]
        rec["time_s"] = round(statistics.median(times), 6)
    return rec


def rounds(zoo_set, family=None):
    """The zoo's (family, variant, builder, batch, size) in rounds: every
    model's first input, then every model's second, ..., so that a run cut
    short by --max-minutes still covers every family."""
    entries = [e for e in zoo_set if family is None or e[0] == family]
    for r in range(max(len(e[3]) for e in entries)):
        for fam, variant, builder, inputs in entries:
            if r < len(inputs):
                yield (fam, variant, builder) + tuple(inputs[r])


def load_done(part):
    done = {}
    if os.path.exists(part):
        with open(part) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    done[r["name"]] = line
    return done


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="the small test set")
    p.add_argument("--out", default="scripts/mdot/data/cpu1.jsonl.gz")
    p.add_argument("--device", default="cpu1",
                   help="short device id recorded in each row (default cpu1)")
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--family", help="collect only this family")
    p.add_argument("--graph-only", action="store_true", help="no timing")
    p.add_argument("--max-minutes", type=float, default=float("inf"),
                   help="start no new row after this many minutes (wall clock)")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    gen = torch.Generator().manual_seed(0)
    zoo_set = zoo.QUICK if args.quick else zoo.DEFAULT
    part = args.out + ".part"
    done = load_done(part)
    meta = {"device_name": f"{cpu_name()} (1 thread)", "torch": torch.__version__,
            "date": time.strftime("%Y-%m-%d", time.gmtime())}
    t_start, wall_end = time.process_time(), time.time() + 60 * args.max_minutes
    with open(part, "a") as f:
        for family, variant, builder, batch, size in rounds(zoo_set, args.family):
            name = f"{variant}-b{batch}-s{size}"
            if name in done:
                continue
            if time.time() > wall_end:
                print(f"--max-minutes reached: {name} and later rows not collected",
                      file=sys.stderr)
                break
            rec = collect_one(family, variant, builder, batch, size, args, gen)
            rec.update(meta)
            line = json.dumps(rec, separators=(",", ":")) + "\n"
            f.write(line)
            f.flush()
            done[name] = line
            print(f"{name}: {len(rec['ops'])} ops, "
                  f"{rec.get('time_s', float('nan')):.4f} s", file=sys.stderr)
    tmp = args.out + ".tmp"
    with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as g:
        for line in done.values():
            g.write(line.encode())
    os.replace(tmp, args.out)
    os.remove(part)
    print(f"{len(done)} rows in {args.out}; CPU time {time.process_time() - t_start:.0f} s",
          file=sys.stderr)


if __name__ == "__main__":
    main()
