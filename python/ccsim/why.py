"""why.py - one sentence saying why the winning scheduler wins.

Not here: the numbers (ccsim writes them: summary.csv, run.json).

The sentence under the demo's table (scripts/run.sh) and in reports: the
winner's gain in allocated GPU utilization over ecmp, how many jobs under
ecmp shared a host or a network link with another communicating job and
how many ran more than 1% slower than alone (run.json "contention"), what
priorities alone (crux-pa: Crux's priorities on ecmp's paths) recover, and
how many jobs the winner still leaves slowed.
"""
METRIC = "gpu_util_allocated_frac"


def _contention(res, run):
    try:
        return res.run_json(run)["contention"]
    except (OSError, KeyError, ValueError):
        return None


def sentence(res, runs=None):
    """The sentence for the runs (a DataFrame of res.runs rows, default all;
    one scheduler each), or None without ecmp or a second scheduler."""
    runs = res.runs if runs is None else runs
    by = {r["scheduler"]: r for _, r in runs.iterrows()}
    util = {s: float(r[METRIC]) for s, r in by.items()}
    real = {s: u for s, u in util.items() if s != "ideal"}
    if "ecmp" not in util or len(real) < 2 or not util["ecmp"] > 0:
        return None
    best = max(real.values())
    tops = [s for s in real if real[s] >= best - 1e-6]
    win = tops[0]

    def gain(s):
        return 100 * (util[s] / util["ecmp"] - 1)

    e = _contention(res, by["ecmp"]["run"])
    if e is None:
        return None
    who = win + " wins" if len(tops) == 1 else " and ".join(tops) + " tie at the top"
    ideal = f"; ideal {util['ideal']:.4f}" if "ideal" in util else ""
    parts = [f"{who} ({gain(win):+.1f}% allocated GPU utilization over ecmp{ideal}): under "
             f"ecmp {e['jobs_at_risk']} of {e['jobs']} jobs share a host or a network link "
             f"with another communicating job and {e['jobs_slowed_by_others']} run more than "
             "1% slower than alone on their own paths"]
    pa = gain("crux-pa") if "crux-pa" in util else None
    if e["jobs_slowed_by_others"] == 0:
        parts.append("; no job is slowed by another, so what separates the schedulers is each "
                     "job's own ECMP collisions, which only path selection undoes")
    elif pa is not None and pa > 0.5:
        parts.append(f"; priorities alone (crux-pa, the same paths) recover {pa:+.1f}%, since "
                     "the most GPU-intensive job goes first on a shared uplink, which only "
                     "contention between jobs can reward")
    elif pa is not None:
        parts.append(f"; priorities alone (crux-pa) change little ({pa:+.1f}%)")
    rest = gain(win) - max(pa or 0, 0)
    if pa is not None and win != "crux-pa" and rest > 0.5:
        parts.append(f", and choosing a path for every NCCL channel flow adds the other "
                     f"{rest:.1f} points by moving flows off the uplinks ECMP hashing stacked")
    w = _contention(res, by[win]["run"])
    if w is not None:
        left = w["jobs_slowed_by_others"]
        parts.append(f"; under {win} {left} job{'s' if left != 1 else ''} "
                     f"{'are' if left != 1 else 'is'} slowed by another")
    return "".join(parts) + "."
