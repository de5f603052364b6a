#!/usr/bin/python3
# MDOT dataset collection: trace every zoo model, time whole training
# iterations and every operator alone, write gzip JSON lines; the cost rules
# live in opgraph.py, the clocks and timing loops in optime.py.
"""Collect the MDOT dataset (operator sequences + measured iteration times).

usage: collect.py [--quick] [--out FILE.jsonl.gz] [--device cpu|cuda]
                  [--device-id NAME] [--precision fp32|bf16|fp16]
                  [--warmup N] [--repeat N] [--op-warmup N] [--op-repeat N]
                  [--no-op-times] [--family F,..] [--graph-only] [--max-minutes M]
       collect.py --merge ROWS.jsonl.gz ... --out FILE.jsonl.gz

For every (model, batch, size) of the zoo (zoo.DEFAULT, or zoo.QUICK with
--quick) it writes one JSON line: the operator sequence (opgraph.export),
the median of --repeat timed training iterations (forward, cross-entropy
loss, backward, SGD step with momentum) after --warmup untimed ones, and,
unless --no-op-times, every operator's own time (forward + backward of the
operator alone, median of --op-repeat after --op-warmup; optime.py).

--device cpu (default) runs on one CPU thread and times with the thread's
CPU time (time.thread_time), so a loaded machine slows the wall clock
more than the figure (other work's cache and memory traffic still reach
it: every row records when it started, started_utc, and the 1-minute load
average at its start and end, load, so that rows of a loaded period can be
told apart).  --device cuda runs on the current GPU and times with CUDA
events (optime.CudaClock); it stops with exit status 2 when PyTorch sees no
CUDA device.  --precision bf16 or fp16 runs forward and loss under autocast
(fp16 with loss scaling); every row records its precision.  --device-id
names the device in the rows and the weights trained on them (default
cpu1 for one CPU thread; on CUDA the GPU's model, e.g. h100).

Models are visited in rounds (every model's first input, then every model's
second, ...) so that --max-minutes, which starts no row after that much
wall-clock time, still leaves every family covered.  Rows already in
FILE.part (an interrupted run) are kept and skipped; FILE is written (gzip,
atomically) at the end.
"""
import argparse
import gzip
import json
import os
import platform
import re
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opgraph  # noqa: E402
import optime  # noqa: E402
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


def gpu_id(name):
    """A short device id from a CUDA device name: the first of the known
    GPU models it names ("NVIDIA H100 80GB HBM3" -> "h100"), else the name
    in lower case with runs of other characters as '-'."""
    for model in ("h200", "h100", "a100", "a10", "l40s", "l4", "v100", "t4"):
        if re.search(rf"\b{model}\b", name.lower()):
            return model
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def setup_device(args):
    """Check --device, fix the clock and the device description; exits 2
    (usage) for CUDA without a CUDA device."""
    if args.device == "cuda":
        if not torch.cuda.is_available():
            print("collect.py: --device cuda: PyTorch sees no CUDA device "
                  "(torch.cuda.is_available() is false); run on a machine with a GPU "
                  "or use --device cpu", file=sys.stderr)
            sys.exit(2)
        name = torch.cuda.get_device_name()
        args.device_id = args.device_id or gpu_id(name)
        return optime.CudaClock(), name
    if args.precision == "fp16":
        print("collect.py: --precision fp16 needs --device cuda (CPU autocast is bf16)",
              file=sys.stderr)
        sys.exit(2)
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    args.device_id = args.device_id or "cpu1"
    return optime.CpuClock(), f"{cpu_name()} (1 thread)"


def collect_one(family, variant, builder, batch, size, args, clock, gen):
    torch.manual_seed(0)
    model = builder()
    x = zoo.example_input(family, batch, size, gen)
    rec = opgraph.export(model, x, name=f"{variant}-b{batch}-s{size}")
    rec.update(family=family, variant=variant, size=size, device=args.device_id,
               precision=args.precision)
    if args.graph_only:
        return rec
    model, x = model.to(args.device), x.to(args.device)
    labels = optime.labels_for(model, x, zoo.VOCAB if family in ("gpt", "llama")
                               else zoo.NUM_CLASSES, gen)
    times = optime.iteration_times(model, x, labels, clock, args.warmup, args.repeat,
                                   args.device, args.precision)
    rec["times_s"] = [round(t, 6) for t in times]
    rec["time_s"] = round(optime.median(times), 6)
    if args.op_times:
        with optime.autocast(args.device, args.precision):
            per_op = optime.op_times(model, x, clock, args.op_warmup, args.op_repeat)
        for op, t in zip(rec["ops"], per_op):
            op["time_s"] = round(t, 7)
        rec["opsum_s"] = round(sum(per_op), 6)
    return rec


def rounds(zoo_set, families=None):
    """The zoo's (family, variant, builder, batch, size) in rounds: every
    model's first input, then every model's second, ..., so that a run cut
    short by --max-minutes still covers every family."""
    entries = [e for e in zoo_set if families is None or e[0] in families]
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


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="the small test set")
    p.add_argument("--out", default="scripts/mdot/data/cpu1.jsonl.gz")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                   help="where to run (default cpu: one thread)")
    p.add_argument("--device-id", help="device name recorded in every row "
                   "(default cpu1, or the GPU model on CUDA)")
    p.add_argument("--precision", choices=("fp32", "bf16", "fp16"), default="fp32",
                   help="fp32, or forward + loss under autocast (default fp32)")
    p.add_argument("--warmup", type=int, default=None,
                   help="untimed iterations (default 1 on CPU, 5 on CUDA)")
    p.add_argument("--repeat", type=int, default=None,
                   help="timed iterations (default 3 on CPU, 20 on CUDA)")
    p.add_argument("--op-warmup", type=int, default=1)
    p.add_argument("--op-repeat", type=int, default=3)
    p.add_argument("--no-op-times", dest="op_times", action="store_false",
                   help="do not time every operator alone")
    p.add_argument("--family", help="collect only these families (comma-separated); "
                   "runs on disjoint families may go side by side, each with its own --out, "
                   "and be merged with --merge")
    p.add_argument("--merge", nargs="+", metavar="ROWS.jsonl.gz",
                   help="write the rows of these files into --out (in zoo order) and stop")
    p.add_argument("--graph-only", action="store_true", help="no timing")
    p.add_argument("--max-minutes", type=float, default=float("inf"),
                   help="start no new row after this many minutes (wall clock)")
    args = p.parse_args(argv)
    cuda = args.device == "cuda"
    args.warmup = args.warmup if args.warmup is not None else (5 if cuda else 1)
    args.repeat = args.repeat if args.repeat is not None else (20 if cuda else 3)
    if min(args.warmup, args.op_warmup) < 0 or min(args.repeat, args.op_repeat) < 1:
        p.error("--warmup must be >= 0 and --repeat >= 1")
    return args


def write_rows(out, lines, zoo_set):
    """Rows (JSON lines by name) to out, gzip, atomically, in the zoo's
    round order (rows of other names last, by name), so that the file does
    not depend on how the collection was split or interrupted."""
    order = {f"{v}-b{b}-s{s}": i for i, (_, v, _, b, s) in enumerate(rounds(zoo_set))}
    names = sorted(lines, key=lambda n: (order.get(n, len(order)), n))
    tmp = out + ".tmp"
    with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as g:
        for n in names:
            g.write(lines[n].encode())
    os.replace(tmp, out)


def merge(args):
    lines = {}
    for path in args.merge:
        with gzip.open(path, "rt") as f:
            for line in f:
                if line.strip():
                    lines[json.loads(line)["name"]] = line
    write_rows(args.out, lines, zoo.QUICK if args.quick else zoo.DEFAULT)
    print(f"{len(lines)} rows in {args.out}", file=sys.stderr)


def main(argv=None):
    args = parse_args(argv)
    if args.merge:
        return merge(args)
    clock, device_name = setup_device(args)
    gen = torch.Generator().manual_seed(0)
    zoo_set = zoo.QUICK if args.quick else zoo.DEFAULT
    part = args.out + ".part"
    done = load_done(part)
    meta = {"device_name": device_name, "clock": clock.name, "torch": torch.__version__,
            "warmup": args.warmup, "repeat": args.repeat,
            "date": time.strftime("%Y-%m-%d", time.gmtime())}
    t_start, wall_end = time.process_time(), time.time() + 60 * args.max_minutes
    with open(part, "a") as f:
        families = set(args.family.split(",")) if args.family else None
        for family, variant, builder, batch, size in rounds(zoo_set, families):
            name = f"{variant}-b{batch}-s{size}"
            if name in done:
                continue
            if time.time() > wall_end:
                print(f"--max-minutes reached: {name} and later rows not collected",
                      file=sys.stderr)
                break
            started, load0 = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), os.getloadavg()[0]
            rec = collect_one(family, variant, builder, batch, size, args, clock, gen)
            rec.update(meta, started_utc=started,
                       load=[round(load0, 2), round(os.getloadavg()[0], 2)])
            line = json.dumps(rec, separators=(",", ":")) + "\n"
            f.write(line)
            f.flush()
            done[name] = line
            print(f"{name}: {len(rec['ops'])} ops, {rec.get('time_s', float('nan')):.4f} s, "
                  f"opsum {rec.get('opsum_s', float('nan')):.4f} s", file=sys.stderr)
    write_rows(args.out, done, zoo_set)
    os.remove(part)
    print(f"{len(done)} rows in {args.out}; CPU time {time.process_time() - t_start:.0f} s",
          file=sys.stderr)


if __name__ == "__main__":
    main()
