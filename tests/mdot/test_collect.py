# Tests of the MDOT tooling (scripts/mdot): the operator export of a
# hand-built network against a hand count, the timing loops (with a fake
# clock), the CUDA path's refusal without CUDA, the quick collection set,
# the batch-affine readout and the lineage folds.
"""Run with /usr/bin/python3 (needs torch); tests/mdot/run-py.sh skips otherwise."""
import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "mdot"))

import torch  # noqa: E402
import collect  # noqa: E402
import dataset  # noqa: E402
import model as mdot_model  # noqa: E402
import opgraph  # noqa: E402
import optime  # noqa: E402
import train  # noqa: E402


def three_layer():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, kernel_size=3, padding=1),
        torch.nn.ReLU(),
        torch.nn.Flatten(),
        torch.nn.Linear(4 * 8 * 8, 10))


class ThreeLayer(unittest.TestCase):
    def setUp(self):
        self.g = opgraph.export(three_layer(), torch.randn(2, 3, 8, 8))

    def test_types_and_preds(self):
        self.assertEqual([o["type"] for o in self.g["ops"]],
                         ["conv", "relu", "flatten", "linear"])
        self.assertEqual([o["preds"] for o in self.g["ops"]], [[], [0], [1], [2]])

    def test_conv(self):
        conv = self.g["ops"][0]
        # output 2x4x8x8 = 512 elements; 2 * Cin(3) * 3*3 = 54 flops each,
        # + 1 bias add: 54 * 512 + 512 = 28160
        self.assertEqual(conv["flops"], 28160)
        # params 4*3*3*3 + 4 = 112 floats = 448 B; input 2*3*8*8*4 = 1536 B
        self.assertEqual(conv["param_bytes"], 448)
        self.assertEqual(conv["bytes_read"], 1536 + 448)
        self.assertEqual(conv["bytes_written"], 512 * 4)
        self.assertEqual(conv["config"], {"in": [3, 8, 8], "out": [4, 8, 8], "g": 1,
                                          "cin": 3, "cout": 4, "k": [3, 3],
                                          "s": [1, 1], "p": [1, 1]})

    def test_relu_flatten(self):
        relu, flat = self.g["ops"][1], self.g["ops"][2]
        # one flop per element, reads and writes 512 floats
        self.assertEqual((relu["flops"], relu["bytes_read"], relu["bytes_written"]),
                         (512, 2048, 2048))
        # a view: no flops, no bytes moved
        self.assertEqual((flat["flops"], flat["bytes_read"], flat["bytes_written"]),
                         (0, 0, 0))

    def test_linear(self):
        lin = self.g["ops"][3]
        # 2 rows x 10 outputs, each 2*256 flops + 1 bias: 20 * 513 = 10260
        self.assertEqual(lin["flops"], 10260)
        # input 2*256*4 = 2048 B; params (256*10 + 10) * 4 = 10280 B
        self.assertEqual(lin["bytes_read"], 2048 + 10280)
        self.assertEqual(lin["bytes_written"], 2 * 10 * 4)
        self.assertEqual(self.g["params"], 112 + 2570)

    def test_scale_batch_equals_export(self):
        # activations scale with the batch, parameters do not: conv at batch 4
        # reads (1984 - 448) * 2 + 448 = 3520 B
        g4 = opgraph.export(three_layer(), torch.randn(4, 3, 8, 8))
        s4 = opgraph.scale_batch(self.g, 4)
        self.assertEqual(s4["ops"][0]["bytes_read"], 3520)
        for a, b in zip(g4["ops"], s4["ops"]):
            for key in ("flops", "bytes_read", "bytes_written"):
                self.assertEqual(a[key], b[key])


class FakeClock:
    """Each stop() returns the next of the given times."""
    name = "fake"

    def __init__(self, times):
        self.times = list(times)

    def start(self):
        pass

    def stop(self):
        return self.times.pop(0)


class Timing(unittest.TestCase):
    def test_warmup_dropped_median_of_repeats(self):
        # 2 warm-up calls (9 and 8 s) are dropped; the median of 3, 1, 2 is 2
        calls = []
        t = optime.timed(lambda: calls.append(1), FakeClock([9, 8, 3, 1, 2]), 2, 3)
        self.assertEqual((t, len(calls), optime.median(t)), ([3, 1, 2], 5, 2))

    def test_prepare_is_untimed_and_runs_before_each_call(self):
        order = []
        optime.timed(lambda: order.append("run"), FakeClock([1, 1]), 1, 1,
                     prepare=lambda: order.append("prep"))
        self.assertEqual(order, ["prep", "run", "prep", "run"])

    def test_gpu_ids(self):
        self.assertEqual(collect.gpu_id("NVIDIA H100 80GB HBM3"), "h100")
        self.assertEqual(collect.gpu_id("NVIDIA A100-SXM4-40GB"), "a100")
        self.assertEqual(collect.gpu_id("NVIDIA H200"), "h200")
        self.assertEqual(collect.gpu_id("Some Card X"), "some-card-x")

    def test_cuda_without_cuda_exits_2(self):
        if torch.cuda.is_available():
            self.skipTest("this machine has CUDA")
        r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "mdot", "collect.py"),
                            "--quick", "--device", "cuda", "--out", "/nonexistent/x.gz"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--device cuda: PyTorch sees no CUDA device", r.stderr)

    def test_op_times_align_with_export(self):
        # one time per exported operator, each positive
        m, x = three_layer(), torch.randn(2, 3, 8, 8)
        t = optime.op_times(m, x, optime.CpuClock(), 0, 1)
        self.assertEqual(len(t), len(opgraph.export(m, x)["ops"]))
        self.assertTrue(all(v >= 0 for v in t))


class QuickSet(unittest.TestCase):
    def test_quick_collection(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "q.jsonl.gz")
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "mdot", "collect.py"),
                            "--quick", "--warmup", "1", "--repeat", "2", "--out", out],
                           check=True, capture_output=True)
            with gzip.open(out, "rt") as f:
                rows = [json.loads(line) for line in f]
        self.assertEqual(len(rows), 5)
        for r in rows:
            self.assertGreater(r["time_s"], 0)
            self.assertEqual(len(r["times_s"]), 2)
            self.assertEqual((r["device"], r["precision"], r["clock"]),
                             ("cpu1", "fp32", "thread CPU time"))
            self.assertGreater(len(r["ops"]), 10)
            self.assertRegex(r["started_utc"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
            self.assertEqual(len(r["load"]), 2)
            self.assertTrue(all(x >= 0 for x in r["load"]))
            self.assertAlmostEqual(r["opsum_s"], sum(op["time_s"] for op in r["ops"]), 5)
            for i, op in enumerate(r["ops"]):
                self.assertTrue(all(p < i for p in op["preds"]))


class Readout(unittest.TestCase):
    """The network's time is affine in the batch whatever its weights."""

    def test_affine_in_batch(self):
        torch.manual_seed(3)
        net = mdot_model.Mdot(d=8, heads=2, ffn=8, layers=1, window=2).double()
        for p in net.parameters():
            torch.nn.init.normal_(p, std=0.3)  # not the zero start: any weights
        row = opgraph.export(three_layer(), torch.randn(2, 3, 8, 8))
        enc = [dataset.encode(row, 8)]

        def t(batch):
            c = dataset.collate(enc, [0], torch.float64, "graph")
            return float(torch.exp(net(c["types"], c["feats"], c["pe"], c["mask"], c["loads"],
                                       torch.tensor([float(batch)], dtype=torch.float64))))
        # T(N) = A + B N: equal steps, and twice the batch at most twice the time
        self.assertAlmostEqual(t(3) - t(2), t(1001) - t(1000), delta=1e-9 * t(1001))
        for b in (1, 16, 4096):
            self.assertLessEqual(t(2 * b), 2 * t(b) * (1 + 1e-12))
            self.assertGreater(t(2 * b), t(b))

    def test_prior_fit_recovers_a_roofline(self):
        # rows made from T = n 1e-5 + F / 1e9 + B / 1e8 exactly: the fit returns them
        rows = []
        for n, f, b in ((10, 1e6, 1e5), (50, 1e8, 1e6), (200, 1e9, 1e8), (30, 1e7, 1e7)):
            ops = [{"flops": f / n, "bytes_read": b / n, "bytes_written": 0}] * n
            rows.append({"ops": ops, "time_s": n * 1e-5 + f / 1e9 + b / 1e8})
        tau, p, bw = train.fit_prior(rows)
        self.assertAlmostEqual(tau / 1e-5, 1, 4)
        self.assertAlmostEqual(p / 1e9, 1, 4)
        self.assertAlmostEqual(bw / 1e8, 1, 4)


class Folds(unittest.TestCase):
    def test_lineages_stay_together(self):
        fams = ["resnet"] * 5 + ["wide_resnet"] * 2 + ["regnet"] * 3 + ["mnasnet"] * 2 + \
            ["efficientnet"] * 2 + ["mobilenet"] * 2 + ["vgg"] * 3 + ["gpt"] * 4
        rows = [{"family": f} for f in fams]
        idx, fold_of = dataset.folds(rows, 3)
        # resnet lineage 10 rows -> fold 0; mbconv 6 -> fold 1; transformer 4 -> fold 2;
        # plain 3 -> the smallest so far, fold 2
        self.assertEqual(fold_of, {"resnet": 0, "mbconv": 1, "transformer": 2, "plain": 2})
        self.assertEqual(sorted(len(f) for f in idx), [6, 7, 10])


class Docs(unittest.TestCase):
    def test_every_operator_type_is_listed(self):
        # docs/mdot.md's operator-type table has one row per vocabulary type
        import features
        with open(os.path.join(ROOT, "docs", "mdot.md")) as f:
            rows = [line.split("|")[1].strip().strip("`") for line in f
                    if line.startswith("| `")]
        self.assertEqual(sorted(set(rows) & set(features.VOCAB)), sorted(features.VOCAB))


if __name__ == "__main__":
    unittest.main()
