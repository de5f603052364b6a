# Tests of the MDOT collector (scripts/mdot): the operator export of a
# hand-built network against a hand count, and the quick collection set.
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
import opgraph  # noqa: E402


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


class QuickSet(unittest.TestCase):
    def test_quick_collection(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "q.jsonl.gz")
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "mdot", "collect.py"),
                            "--quick", "--warmup", "1", "--repeat", "2", "--out", out],
                           check=True, capture_output=True)
            with gzip.open(out, "rt") as f:
                rows = [json.loads(line) for line in f]
        self.assertEqual(len(rows), 4)
        for r in rows:
            self.assertGreater(r["time_s"], 0)
            self.assertEqual(len(r["times_s"]), 2)
            self.assertGreater(len(r["ops"]), 10)
            for i, op in enumerate(r["ops"]):
                self.assertTrue(all(p < i for p in op["preds"]))


if __name__ == "__main__":
    unittest.main()
