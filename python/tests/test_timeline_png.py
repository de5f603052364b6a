"""test_timeline_png.py - scripts/timeline_png.py keeps NVLink and network
rates apart: a 16-GPU job on two 8-GPU hosts of fat-tree:k=4 (an NVSwitch
inside each host; 4 NICs of 200 Gbps each, the default server) moves most
of its ring inside the hosts.  Its "network Gbps" can never exceed what
its 8 NICs carry both ways, 2 x 8 x 200 = 3200 Gbps (the picture once
showed 150,000 Gbps: NVLink counted as network); its NVLink traffic is
drawn in a panel of its own."""
import os
import subprocess
import sys
import tempfile
import unittest

from ccsim.runner import binary

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import timeline_png  # noqa: E402

SCENARIO = """{"topology": "fat-tree:k=4", "trace": {"jobs": [
  {"id": "j1", "gpus": 16, "hosts": ["h0", "h1"], "start_s": 0, "end_s": 3,
   "model": {"compute_s": 0.5, "comm_bytes": 4e9, "comm_start_frac": 1.0}}]}}"""


class TimelinePng(unittest.TestCase):
    def test_nvlink_and_network_apart(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "s.json"), "w") as f:
                f.write(SCENARIO)
            subprocess.run([binary(), "run", "--scenario", os.path.join(d, "s.json"), "-q",
                            "--timeline", "t.json", "-o", os.path.join(d, "out")],
                           check=True, capture_output=True)
            names, slices, rates = timeline_png.load(os.path.join(d, "out", "t.json"))
        net = [g for pts in rates["network Gbps"].values() for _, g in pts]
        nvl = [g for pts in rates["NVLink Gbps"].values() for _, g in pts]
        self.assertTrue(net and nvl)
        self.assertLessEqual(max(net), 3200 * (1 + 1e-9))
        self.assertGreater(max(nvl), 0)
        fig = timeline_png.draw(names, slices, rates)
        panels = [ax.get_ylabel() for ax in fig.axes][1:]
        self.assertEqual(panels, ["network rate\n(Gbps)", "NVLink rate\n(in a host)\n(Gbps)"])
        self.assertEqual([ax.get_ylim()[0] for ax in fig.axes[1:]], [0, 0])


if __name__ == "__main__":
    unittest.main()
