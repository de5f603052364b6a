#!/usr/bin/env python3
"""validate-workloads.py - structured jobs against published measurements.

Every case of docs/validation.md "Structured jobs against published
measurements": its exact setup as the paper (or its published scripts)
gives it, written as a scenario file in examples/validation/, the
published number, and how ccsim's number is read.  With --write the
scenario files are (re)written from the table below; otherwise they are
run with the ccsim binary and a Markdown table (published, ccsim, error)
is printed, and with --docs FILE it replaces the block between the
markers of FILE.

Single-job cases are measured by `ccsim workload explain SCENARIO --csv`
(one iteration of the job alone on the engine); two-job cases by `ccsim
run` (the mean iteration time of jobs.csv); the Crux testbed's by `ccsim
run` under ecmp and under crux (summary.csv's allocated GPU utilization
and every job's mean iteration time, compared as crux / ecmp - 1).  Nothing here is fitted: the
only rate is the A100's, set once from Narayanan et al. Table 1's first
row (docs/models.md), which is therefore listed as the calibration row.

Usage: validate-workloads.py [--ccsim BUILD/ccsim] [--write] [--docs FILE]
                             [--only PREFIX] [--out DIR]
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CASES_DIR = os.path.join(ROOT, "examples", "validation")
BEGIN = "<!-- BEGIN validate-workloads table (scripts/validate-workloads.py --docs) -->"
END = "<!-- END validate-workloads table -->"

# Selene (Narayanan et al. §5): DGX A100 nodes, 8 GPUs on NVSwitch, eight
# 200 Gb/s HDR NICs each, a non-blocking fat tree.  One ToR per 8 hosts.
def selene(hosts):
    tors = max(1, (hosts + 7) // 8)
    per_tor = min(hosts, 8)
    return f"clos2:tors={tors},aggs=8,hosts_per_tor={per_tor},nics=8,nic_gbps=200"


def gpt(layers, hidden, heads):
    return {"layers": layers, "hidden": hidden, "heads": heads, "seq": 2048, "vocab": 51200}


def megatron_job(name, gpus, arch, tp, pp, gbs, mbs, vpp=1, ddp="local", zero=0):
    """A Megatron-LM run of examples/sc21: fp16 (--fp16: fp16 gradients,
    no fp32 accumulation), full recomputation (--recompute-method uniform),
    --DDP-impl torch (PyTorch DDP, overlapped 25 MB buckets) or local
    (one reduction after the backward)."""
    st = {"arch": arch, "framework": "ddp" if ddp == "torch" else "megatron",
          "grad_dtype": "fp16", "tp": tp, "pp": pp, "global_batch": gbs,
          "micro_batch_size": mbs, "recompute": "full"}
    if vpp > 1:
        st["vpp"] = vpp
    if zero:
        st["zero"] = zero
        st["framework"] = "fsdp"
    return {"id": name, "gpus": gpus, "start_s": 0, "end_s": 1e6, "model": {"structure": st}}


def scenario(topology, jobs, **sim):
    s = {"topology": topology, "trace": {"jobs": jobs}, "scheduler": "ecmp"}
    if sim:
        s["sim"] = sim
    return s


# (name, model, GPUs, tp, pp, global batch, micro-batch, vpp, DDP, TFLOP/s per GPU)
# Narayanan et al. SC'21 Table 1; degrees, batches and the DDP implementation
# from Megatron-LM examples/sc21/run_table_1.sh.
TABLE1 = [
    ("1.7b", gpt(24, 2304, 24), 32, 1, 1, 512, 16, 1, "torch", 137),
    ("3.6b", gpt(30, 3072, 32), 64, 2, 1, 512, 16, 1, "torch", 138),
    ("7.5b", gpt(36, 4096, 32), 128, 4, 1, 512, 16, 1, "torch", 142),
    ("18.4b", gpt(40, 6144, 48), 256, 8, 1, 1024, 8, 1, "torch", 135),
    ("39.1b", gpt(48, 8192, 64), 512, 8, 2, 1536, 4, 1, "local", 138),
    ("76.1b", gpt(60, 10240, 80), 1024, 8, 4, 1792, 2, 3, "local", 140),
    ("145.6b", gpt(80, 12288, 96), 1536, 8, 8, 2304, 2, 2, "local", 148),
    ("310.1b", gpt(96, 16384, 128), 1920, 8, 16, 2160, 1, 2, "local", 155),
    ("529.6b", gpt(105, 20480, 128), 2520, 8, 35, 2520, 1, 3, "local", 163),
    ("1008b", gpt(128, 25600, 160), 3072, 8, 64, 3072, 1, 1, "local", 163),
]

# Table 2: PTD-P (model-parallel size 96 = tp 8 x pp 12 for GPT-3 175B, 280
# = 8 x 35 for 530B; micro-batch 1) and ZeRO-3 without model parallelism.
GPT175 = gpt(96, 12288, 96)
GPT530 = gpt(105, 20480, 128)
TABLE2 = [
    ("ptd-175b-384", GPT175, 384, 8, 12, 1536, 1, 0, 153),
    ("ptd-175b-768", GPT175, 768, 8, 12, 1536, 1, 0, 149),
    ("ptd-175b-1536", GPT175, 1536, 8, 12, 1536, 1, 0, 141),
    ("ptd-530b-560", GPT530, 560, 8, 35, 2240, 1, 0, 171),
    ("ptd-530b-1120", GPT530, 1120, 8, 35, 2240, 1, 0, 167),
    ("ptd-530b-2240", GPT530, 2240, 8, 35, 2240, 1, 0, 159),
    ("zero3-175b-384", GPT175, 384, 1, 1, 1536, 4, 3, 144),
    ("zero3-175b-768", GPT175, 768, 1, 1, 1536, 2, 3, 88),
    ("zero3-175b-1536", GPT175, 1536, 1, 1, 1536, 1, 3, 44),
    ("zero3-530b-640", GPT530, 640, 1, 1, 2560, 4, 3, 138),
    ("zero3-530b-1120", GPT530, 1120, 1, 1, 2240, 2, 3, 98),
    ("zero3-530b-2240", GPT530, 2240, 1, 1, 2240, 1, 3, 48),
]

# Figure 13 (examples/sc21/run_figure_13.sh): 162.2 B GPT (32 layers,
# h 20480, 128 heads) on 64 GPUs, micro-batch 1, batch 32 and 128,
# (pp, tp) in (2,32) (4,16) (8,8) (16,4) (32,2).  The text gives one
# number: sub-optimal combinations are "up to 2x" slower than the best.
FIG13 = [(pp, 64 // pp, b) for b in (32, 128) for pp in (2, 4, 8, 16, 32)]
# Figure 16 (run_figure_16.sh): 91 B GPT (32 layers, h 15360, 128 heads),
# (t, p) = (8, 8), batch 128 and 512, micro-batch 1, 2, 4, 8.  The text:
# "the best microbatch size is 2", "can increase throughput by 15%".
FIG16 = [(mbs, b) for b in (128, 512) for mbs in (1, 2, 4, 8)]


def megatron_cases():
    cases = []
    for name, arch, gpus, tp, pp, gbs, mbs, vpp, ddp, pub in TABLE1:
        job = megatron_job("gpt-" + name, gpus, arch, tp, pp, gbs, mbs, vpp, ddp)
        cases.append({
            "name": f"megatron-t1-{name}", "source": "Narayanan et al. SC'21 Table 1",
            "setup": f"GPT {name.upper()}, {gpus} A100, (tp, pp) = ({tp}, {pp}), "
                     f"batch {gbs}, micro-batch {mbs}" + (f", vpp {vpp}" if vpp > 1 else ""),
            "quantity": "TFLOP/s per GPU", "published": pub, "measure": "tflops",
            "calibration": name == "1.7b",
            "scenario": scenario(selene(gpus // 8), [job])})
    for name, arch, gpus, tp, pp, gbs, mbs, zero, pub in TABLE2:
        job = megatron_job("gpt", gpus, arch, tp, pp, gbs, mbs, 1, "local", zero)
        kind = "ZeRO-3 (DeepSpeed), no model parallelism" if zero else f"PTD-P (tp {tp}, pp {pp})"
        cases.append({
            "name": f"megatron-t2-{name}", "source": "Narayanan et al. SC'21 Table 2",
            "setup": f"{kind}, {gpus} A100, batch {gbs}, micro-batch {mbs}",
            "quantity": "TFLOP/s per GPU", "published": pub, "measure": "tflops",
            "scenario": scenario(selene(gpus // 8), [job])})
    for pp, tp, gbs in FIG13:
        job = megatron_job("gpt", 64, gpt(32, 20480, 128), tp, pp, gbs, 1)
        job["model"]["structure"]["tp_across_hosts"] = tp > 8
        cases.append({
            "name": f"megatron-f13-pp{pp}-tp{tp}-b{gbs}", "source": "Narayanan et al. SC'21 Fig. 13",
            "setup": f"162.2 B GPT, 64 A100, (pp, tp) = ({pp}, {tp}), batch {gbs}",
            "quantity": "TFLOP/s per GPU", "published": None, "measure": "tflops",
            "group": f"fig13-b{gbs}", "scenario": scenario(selene(8), [job])})
    for mbs, gbs in FIG16:
        job = megatron_job("gpt", 64, gpt(32, 15360, 128), 8, 8, gbs, mbs)
        cases.append({
            "name": f"megatron-f16-mbs{mbs}-b{gbs}", "source": "Narayanan et al. SC'21 Fig. 16",
            "setup": f"91 B GPT, 64 A100, (t, p) = (8, 8), batch {gbs}, micro-batch {mbs}",
            "quantity": "TFLOP/s per GPU", "published": None, "measure": "tflops",
            "group": f"fig16-b{gbs}", "scenario": scenario(selene(8), [job])})
    return cases


# PyTorch DDP's own benchmark (pytorch/pytorch benchmarks/distributed/ddp/
# README.md, by the authors of Li et al. VLDB'20): DGX-1 machines (8 V100 on
# NVLink, 4 x 100 Gb/s InfiniBand, two GPUs per NIC behind one PCIe Gen3
# switch), PyTorch 1.4, NCCL, batch 32 per GPU, fp32.  p50 seconds per
# iteration with the default 25 MB buckets, and p75 with 1 MB buckets.
DGX1 = "nics=4,nic_gbps=100,pcie_gbps=126,nvlink_GBps=50"
DDP_MODELS = {  # name: (parameters, 1-GPU iteration without DDP, s)
    "resnet50": (25557032, 0.097),
    "resnet101": (44549160, 0.162),
}
DDP_CASES = [  # (model, GPUs, bucket MB, published s, what)
    ("resnet50", 2, 25, 0.103, "p50"), ("resnet50", 4, 25, 0.103, "p50"),
    ("resnet50", 8, 25, 0.104, "p50"), ("resnet50", 16, 25, 0.104, "p50"),
    ("resnet50", 16, 1, 0.108, "p75"),
    ("resnet101", 2, 25, 0.176, "p50"), ("resnet101", 8, 25, 0.179, "p50"),
    ("resnet101", 16, 25, 0.179, "p50"), ("resnet101", 16, 1, 0.187, "p75"),
]
# Forward share of ResNet-50's compute, measured on H100 (docs/models.md M).
RESNET_FWD_FRAC = 0.4588


def ddp_cases():
    cases = []
    for model, gpus, mb, pub, what in DDP_CASES:
        params, t1 = DDP_MODELS[model]
        hosts = max(1, gpus // 8)
        st = {"framework": "ddp", "fwd_s": t1 * RESNET_FWD_FRAC,
              "bwd_s": t1 * (1 - RESNET_FWD_FRAC), "grad_bytes": params * 4, "bucket_mb": mb,
              "opt_s": 0}
        job = {"id": model, "gpus": gpus, "start_s": 0, "end_s": 1e6,
               "model": {"structure": st}}
        topo = f"clos2:tors=1,aggs=1,hosts_per_tor={max(hosts, 2)},{DGX1}"
        cases.append({
            "name": f"ddp-{model}-{gpus}g-{mb}mb", "source": "PyTorch DDP benchmark (DGX-1 V100)",
            "setup": f"{model}, batch 32, {gpus} GPUs, {mb} MB buckets ({what})",
            "quantity": "s per iteration", "published": pub, "measure": "iter_s",
            "scenario": scenario(topo, [job])})
    return cases


# Crux §2, Figure 7: a 64-GPU GPT (Megatron-LM examples/gpt3 with 24 layers
# and hidden 1024: micro-batch 1, global batch 1536, fp16) on hosts H1-H8,
# four under each of two ToRs, and a 16-GPU BERT on H9-H12 (four GPUs each)
# under the same ToRs, on the Crux testbed's hosts (8 A100, 4 x 200 Gb/s
# NICs, two GPUs per NIC).  GPT iterates in 1.53 s alone, 1.70 s with BERT.
# Not published: GPT's heads (96 does not divide 1024: we take 16), its
# parallelism (we run the script's tp 8 with pp 8 to fill 64 GPUs, and plain
# data parallelism), BERT's batch (the catalog's), the ToR uplinks (we run
# 1:1, 2:1 and 4:1 with two aggregation switches).
def crux_gpt(variant):
    st = {"arch": gpt(24, 1024, 16), "framework": "megatron", "grad_dtype": "fp16",
          "global_batch": 1536, "micro_batch_size": 1}
    if variant == "tp8pp8":
        st.update({"tp": 8, "pp": 8})
    return {"id": "gpt", "gpus": 64, "start_s": 0, "end_s": 600,
            "hosts": ["h0", "h1", "h2", "h3", "h6", "h7", "h8", "h9"],
            "model": {"structure": st}}


def crux_cases():
    bert = {"id": "bert", "gpus": 16, "start_s": 0, "end_s": 600,
            "hosts": ["h4", "h5", "h10", "h11"], "host_gpus": [4, 4, 4, 4], "model": "BERT-large"}
    cases = []
    for variant in ("tp8pp8", "dp64"):
        for oversub in (1, 2, 4):
            topo = f"clos2:tors=2,aggs=2,hosts_per_tor=6,oversub={oversub}"
            for name, jobs, pub in (("alone", [crux_gpt(variant)], 1.53),
                                    ("with-bert", [crux_gpt(variant), bert], 1.70)):
                cases.append({
                    "name": f"crux-f7-{variant}-{oversub}to1-{name}",
                    "source": "Crux SIGCOMM'24 §2 Fig. 7",
                    "setup": f"GPT 24 x 1024 on 64 GPUs ({variant}), {name}, ToR uplinks "
                             f"{oversub}:1", "quantity": "GPT s per iteration",
                    "published": pub, "measure": "run_iter_s:gpt",
                    "scenario": scenario(topo, jobs, end_s=600)})
    return cases


# Crux §6.2 (the 96-GPU testbed, Fig. 18): 12 hosts of 8 A100 with 4 x
# 200 Gb/s RDMA NICs (two GPUs per NIC), all 4 NICs of a host on one ToR of
# a two-layer Clos; GPT, BERT and ResNet jobs, each alone ("ideal"), then
# together without Crux (NCCL over ECMP: `ecmp`) and with it (`crux`).
# Fig. 19: a 32-GPU GPT with "multiple" 8-GPU BERT jobs (utilization +8.3%
# to +12.9% with Crux; GPT's JCT -11% to -25%, BERT's +0% to +3%).
# Fig. 20: a 48-GPU GPT, two 16-GPU BERT and two 8-GPU ResNet jobs (96
# GPUs: utilization +13.9%; JCT GPT -18%, BERT -15%, ResNet +2%).
# Not published, taken before any run: the models (the catalog's GPT-350M,
# Crux's GPT; BERT-large; ResNet-50), the Clos (Fig. 7's: 6 hosts under
# each of 2 ToRs, 2 aggregation switches, uplinks 1:1, 2:1 and 4:1), the
# placement (Fig. 7's: GPT on whole hosts, the others in halves of 4 GPUs,
# each job split evenly over the two ToRs), the number of BERT jobs of
# Fig. 19 (every count the testbed holds beside the GPT: 1 to 8).
TESTBED_SCHEDS = ("ecmp", "crux")
TESTBED_END_S = 60  # 68 GPT and 430+ BERT iterations; a run of 8 BERT jobs costs 2-3 CPU s


def testbed_job(jid, model, hosts, per_host):
    return {"id": jid, "gpus": per_host * len(hosts), "start_s": 0, "end_s": TESTBED_END_S,
            "hosts": hosts, "host_gpus": [per_host] * len(hosts), "model": model}


def testbed_fig19(nbert):
    """GPT on h0 h1 | h6 h7; BERT j on one half of h(2 + j/2) and h(8 + j/2)."""
    jobs = [testbed_job("gpt", "GPT-350M", ["h0", "h1", "h6", "h7"], 8)]
    for j in range(nbert):
        jobs.append(testbed_job(f"bert{j}", "BERT-large", [f"h{2 + j // 2}", f"h{8 + j // 2}"], 4))
    return jobs


def testbed_fig20():
    """GPT on h0-h2 | h6-h8; each BERT on halves of h3 h4 | h9 h10, each ResNet of h5 | h11."""
    jobs = [testbed_job("gpt", "GPT-350M", ["h0", "h1", "h2", "h6", "h7", "h8"], 8)]
    for j in range(2):
        jobs.append(testbed_job(f"bert{j}", "BERT-large", ["h3", "h4", "h9", "h10"], 4))
        jobs.append(testbed_job(f"resnet{j}", "ResNet-50", ["h5", "h11"], 4))
    return jobs


def testbed_cases():
    cases = []
    for oversub in (1, 2, 4):
        topo = f"clos2:tors=2,aggs=2,hosts_per_tor=6,oversub={oversub}"
        runs = [(f"f19-{n}bert", f"32-GPU GPT with {n} 8-GPU BERT", testbed_fig19(n))
                for n in range(1, 9)]
        runs.append(("f20", "48-GPU GPT, 2 x 16-GPU BERT, 2 x 8-GPU ResNet", testbed_fig20()))
        for tag, what, jobs in runs:
            for sched in TESTBED_SCHEDS:
                s = scenario(topo, jobs, end_s=TESTBED_END_S)
                s["scheduler"] = sched
                cases.append({
                    "name": f"crux-tb-{tag}-{oversub}to1-{sched}", "source": "Crux SIGCOMM'24 §6.2",
                    "setup": f"{what}, ToR uplinks {oversub}:1, {sched}",
                    "quantity": "GPU utilization", "published": None, "measure": "run_all",
                    "scenario": s})
    return cases


# CASSINI §2.2, Figure 2: two data-parallel VGG19 jobs, each on two servers
# (one A100-40GB and one 50 Gb/s ConnectX-5 each), sharing link l1; started
# together they share it fairly (about 22 Gb/s each); shifting j2 by 120 ms
# interleaves them and speeds the p90 iteration up 1.26x.  Not published:
# VGG19's compute at their batch; we take VGG16's profile of Figure 3
# (255 ms: 141 ms without traffic, then 114 ms) scaled by the forward FLOPs
# of VGG19 / VGG16 (19.6 / 15.5 GFLOPs per image).  VGG19's gradients are
# not ready evenly over the backward: its three fully connected layers hold
# 123,642,856 of its 143,667,240 parameters (86%) and their backward runs
# first, done after 0.63% of the pass (their share of its FLOPs), so those
# bytes are early gradients (docs/model.md §4b "Bucket readiness").
# Two readings of the profile (docs/validation.md): "overlap", the silent
# phase the forward and the traffic phase the backward with the reduction
# overlapping it; "after", the silent phase the whole compute (split at
# VGG19's forward share of its FLOPs) and the reduction after it (DDP
# without overlap), since a backward twice the forward cannot fit the
# 114-ms traffic phase.  Their 120 ms shift interleaves their profile; ours
# shifts j2 by half of the profile as each reading models it: half the
# compute, or half of the compute and the reduction alone.
VGG19_CONVS = ([(3, 64, 224), (64, 64, 224), (64, 128, 112), (128, 128, 112), (128, 256, 56)]
               + [(256, 256, 56)] * 3 + [(256, 512, 28)] + [(512, 512, 28)] * 3
               + [(512, 512, 14)] * 4)          # (in, out channels, side) of each 3x3 conv
VGG19_FCS = [(25088, 4096), (4096, 4096), (4096, 1000)]


def vgg19():
    """VGG19's parameters, those of its FC layers, the point of the backward
    pass where the FC layers' gradients are complete, and the forward's
    share of forward + backward FLOPs."""
    conv_macs = [i * o * 9 * s * s for i, o, s in VGG19_CONVS]
    fc_macs = sum(i * o for i, o in VGG19_FCS)
    conv_params = sum(i * o * 9 + o for i, o, _ in VGG19_CONVS)
    fc_params = sum(i * o + o for i, o in VGG19_FCS)
    fwd = sum(conv_macs) + fc_macs
    # The backward of a layer is twice its forward, but the first conv has no input gradient.
    bwd = 2 * fwd - conv_macs[0]
    return {"params": conv_params + fc_params, "fc_params": fc_params,
            "fc_done": 2 * fc_macs / bwd, "fwd_share": fwd / (fwd + bwd)}


def cassini_cases():
    hosts = [{"name": n, "gpus": 1, "nics": 1, "nic_gbps": 50} for n in ("s1", "s2", "s3", "s4")]
    links = [{"a": a, "b": b, "gbps": 50, "latency_us": 1}
             for a, b in (("s1", "A"), ("s3", "A"), ("s2", "B"), ("s4", "B"), ("A", "B"))]
    topo = {"hosts": hosts, "switches": ["A", "B"], "links": links}
    scale = 19.6 / 15.5
    v = vgg19()
    grads = {"grad_bytes": v["params"] * 4, "grad_early_bytes": v["fc_params"] * 4,
             "grad_early_at": v["fc_done"], "opt_s": 0}
    silent = 0.141 * scale
    readings = {
        "": ({"framework": "ddp", "fwd_s": silent, "bwd_s": 0.114 * scale, **grads},
             (silent + 0.114 * scale) / 2, "the reduction overlapping the backward"),
        # alone, the 2-host ring all-reduce sends every gradient byte once over 50 Gb/s
        "after-": ({"framework": "ddp", "fwd_s": silent * v["fwd_share"],
                    "bwd_s": silent * (1 - v["fwd_share"]), "overlap_grad_reduce": False,
                    **grads}, (silent + v["params"] * 4 / 6.25e9) / 2,
                   "the reduction after the compute"),
    }
    cases = []
    for tag, (st, half, how) in readings.items():
        jobs = [{"id": j, "gpus": 2, "start_s": 0, "end_s": 300, "hosts": h,
                 "model": {"structure": st}} for j, h in (("j1", ["s1", "s2"]), ("j2", ["s3", "s4"]))]
        shifted = scenario(topo, jobs, end_s=300)
        shifted["scheduler"] = {"name": "fixed", "jobs": {"j2": {"shift_s": round(half, 3)}}}
        cases += [
            {"name": f"cassini-f2-{tag}together", "source": "CASSINI NSDI'24 §2.2 Fig. 2",
             "setup": f"two VGG19 DDP jobs on one 50 Gb/s link, started together ({how})",
             "quantity": "j1 s per iteration", "published": None, "measure": "run_iter_s:j1",
             "group": "cassini", "scenario": scenario(topo, jobs, end_s=300)},
            {"name": f"cassini-f2-{tag}shifted", "source": "CASSINI NSDI'24 §2.2 Fig. 2",
             "setup": f"the same, j2 shifted by half an iteration ({how})",
             "quantity": "j1 s per iteration", "published": None, "measure": "run_iter_s:j1",
             "group": "cassini", "scenario": shifted},
        ]
    return cases


def run_case(ccsim, c, workdir):
    """ccsim's number for case c: TFLOP/s per GPU or seconds per iteration."""
    path = os.path.join(CASES_DIR, c["name"] + ".json")
    kind = c["measure"]
    if kind in ("tflops", "iter_s"):
        out = subprocess.run([ccsim, "workload", "explain", path, "--csv"], check=True,
                             capture_output=True, text=True).stdout
        kv = dict(row for row in csv.reader(io.StringIO(out)))
        return float(kv["tflops_per_gpu" if kind == "tflops" else "iter_s"])
    out = os.path.join(workdir, c["name"])
    subprocess.run([ccsim, "run", "--scenario", path, "--out", out, "--force", "--quiet"],
                   check=True, capture_output=True)
    with open(os.path.join(out, "jobs.csv"), newline="") as f:
        iters = {row["job_id"]: float(row["mean_iter_s"]) for row in csv.DictReader(f)}
    if kind == "run_all":  # the allocated GPU utilization and every job's iteration
        with open(os.path.join(out, "summary.csv"), newline="") as f:
            util = float(next(csv.DictReader(f))["gpu_util_allocated_frac"])
        return {"util": util, "iter": iters}
    job = kind.split(":", 1)[1]
    if job not in iters:
        sys.exit(f"validate-workloads.py: {c['name']}: no job {job} in jobs.csv")
    return iters[job]


def error_pct(ours, pub):
    return 100.0 * (ours - pub) / pub


def derived_rows(cases, vals):
    """Published numbers that compare whole groups of runs (the text's ratios)."""
    rows = []
    for b in (32, 128):
        g = {c["setup"]: vals[c["name"]] for c in cases if c.get("group") == f"fig13-b{b}"}
        if g:
            rows.append((f"Narayanan et al. Fig. 13, batch {b}",
                         "best / worst (pp, tp) of (2,32) (4,16) (8,8) (16,4) (32,2), 64 GPUs",
                         "up to 2x", max(g.values()) / min(g.values()), 2.0, "ratio"))
    for b in (128, 512):
        g = {c["name"]: vals[c["name"]] for c in cases if c.get("group") == f"fig16-b{b}"}
        if g:
            best = max(g, key=g.get).split("-mbs")[1].split("-")[0]
            rows.append((f"Narayanan et al. Fig. 16, batch {b}", "best micro-batch size, (t, p) = (8, 8)",
                         "2", float(best), 2.0, "value"))
    for variant in ("tp8pp8", "dp64"):
        for o in (1, 2, 4):
            a = vals.get(f"crux-f7-{variant}-{o}to1-alone")
            w = vals.get(f"crux-f7-{variant}-{o}to1-with-bert")
            if a and w:
                rows.append((f"Crux §2 Fig. 7 ({variant}, {o}:1)", "GPT's slowdown with BERT on its "
                             "ToR uplinks (with BERT / alone)", "1.11x (1.70 / 1.53 s)", w / a,
                             1.70 / 1.53, "ratio"))
    for tag, how in (("", "reduction overlapping the backward"),
                     ("after-", "reduction after the compute")):
        t, sh = vals.get(f"cassini-f2-{tag}together"), vals.get(f"cassini-f2-{tag}shifted")
        if t and sh:
            rows.append((f"CASSINI §2.2 Fig. 2 ({how})", "two VGG19 jobs on one 50 Gb/s link: "
                         "iteration together / interleaved (j2 shifted)", "1.26x (p90)", t / sh,
                         1.26, "ratio"))
    return rows


# What §6.2 publishes: Fig. 20's changes with Crux, and Fig. 19's ranges over
# its BERT counts ((smallest, largest) effect), as fractions.
FIG20_PUB = {"util": 0.139, "gpt": -0.18, "bert": -0.15, "resnet": 0.02}
FIG19_PUB = {"util": (0.083, 0.129), "gpt": (-0.11, -0.25), "bert": (0.0, 0.03)}
WHAT = {"util": "GPU utilization", "gpt": "GPT's JCT", "bert": "BERT's JCT (mean of the jobs)",
        "resnet": "ResNet's JCT (mean of the jobs)"}


def testbed_changes(vals, tag, o):
    """crux against ecmp in one testbed run: utilization and each model's JCT."""
    e, c = vals.get(f"crux-tb-{tag}-{o}to1-ecmp"), vals.get(f"crux-tb-{tag}-{o}to1-crux")
    if not (e and c):
        return None
    ch = {"util": c["util"] / e["util"] - 1}
    for model in ("gpt", "bert", "resnet"):
        d = [c["iter"][j] / e["iter"][j] - 1 for j in e["iter"] if j.startswith(model)]
        if d:
            ch[model] = sum(d) / len(d)
    return ch


def testbed_rows(vals):
    rows = []
    for o in (1, 2, 4):
        f20 = testbed_changes(vals, "f20", o)
        for key, pub in FIG20_PUB.items() if f20 else ():
            rows.append((f"Crux §6.2 Fig. 20 ({o}:1)", f"{WHAT[key]}, crux against ecmp",
                         f"{pub:+.1%}", f20[key], pub, "change"))
        f19 = [ch for ch in (testbed_changes(vals, f"f19-{n}bert", o) for n in range(1, 9)) if ch]
        for key, pub in FIG19_PUB.items() if f19 else ():
            ours = sorted((ch[key] for ch in f19), key=abs)
            rows.append((f"Crux §6.2 Fig. 19 ({o}:1)", f"{WHAT[key]}, crux against ecmp, "
                         f"1 to {len(f19)} BERT jobs", f"{pub[0]:+.1%} to {pub[1]:+.1%}",
                         (ours[0], ours[-1]), pub, "range"))
    return rows


def effect_error(ours, pub):
    return f"{error_pct(ours, pub):+.0f}%" if pub else "n/a (published 0)"


def table_row(name, setup, pub_text, ours, pub, kind):
    if kind == "ratio":  # the effect's size: (ratio - 1) against (published - 1)
        return (f"| {name} | {setup} | {pub_text} | {ours:.3g}x | "
                f"{error_pct(ours - 1, pub - 1):+.0f}% of the effect |")
    if kind == "change":
        return f"| {name} | {setup} | {pub_text} | {ours:+.1%} | {effect_error(ours, pub)} of the effect |"
    if kind == "range":  # (smallest, largest) effect, each end against the paper's
        return (f"| {name} | {setup} | {pub_text} | {ours[0]:+.1%} to {ours[1]:+.1%} | "
                f"{effect_error(ours[0], pub[0])}, {effect_error(ours[1], pub[1])} of the effect |")
    return f"| {name} | {setup} | {pub_text} | {ours:.3g} | {error_pct(ours, pub):+.0f}% |"


def table(cases, vals):
    lines = ["| case | setup | published | ccsim | error |", "|---|---|---|---|---|"]
    for c in cases:
        if c["published"] is None:
            continue
        ours, pub = vals[c["name"]], c["published"]
        err = "calibration" if c.get("calibration") else f"{error_pct(ours, pub):+.1f}%"
        lines.append(f"| {c['name']} | {c['setup']} | {pub:g} {c['quantity']} | {ours:.4g} | {err} |")
    for row in derived_rows(cases, vals) + testbed_rows(vals):
        lines.append(table_row(*row))
    return "\n".join(lines)


def replace_block(path, text):
    with open(path) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        sys.exit(f"validate-workloads.py: {path} lacks the generated-block markers")
    head, rest = doc.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(path, "w") as f:
        f.write(head + BEGIN + "\n" + text + "\n" + END + tail)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ccsim", default=os.path.join(ROOT, "build", "ccsim"))
    ap.add_argument("--write", action="store_true", help="rewrite examples/validation/*.json")
    ap.add_argument("--docs", help="replace the generated block of this Markdown file")
    ap.add_argument("--only", default="", help="cases whose name starts with this")
    args = ap.parse_args()
    if args.docs and args.only:
        ap.error("--docs rewrites the whole table: run it without --only")
    cases = [c for c in megatron_cases() + ddp_cases() + crux_cases() + testbed_cases() + cassini_cases()
             if c["name"].startswith(args.only)]
    if args.write:
        os.makedirs(CASES_DIR, exist_ok=True)
        for c in cases:
            with open(os.path.join(CASES_DIR, c["name"] + ".json"), "w") as f:
                json.dump(c["scenario"], f, indent=1)
                f.write("\n")
        print(f"wrote {len(cases)} scenarios to {CASES_DIR}")
        return
    vals = {}
    with tempfile.TemporaryDirectory() as work:
        for c in cases:
            vals[c["name"]] = run_case(args.ccsim, c, work)
    text = table(cases, vals)
    print(text)
    if args.docs:
        replace_block(args.docs, text)


if __name__ == "__main__":
    main()
