"""test_why.py - the sentence under the demo's table (ccsim.why), on a
compare folder with numbers chosen by hand: ecmp 0.80, crux-pa 0.84
(+5.0%), crux 0.852 (+6.5%, so paths add the other 1.5 points), ideal
0.86; under ecmp 3 of 10 jobs at risk and 2 slowed, under crux none."""
import os
import subprocess
import sys
import tempfile
import unittest

from fixtures import make_compare

import ccsim
from ccsim import why

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


class Why(unittest.TestCase):
    def test_sentence(self):
        with tempfile.TemporaryDirectory() as d:
            make_compare(d + "/c", {"ecmp": (0.80, 2), "crux-pa": (0.84, 1), "crux": (0.852, 0),
                                    "ideal": (0.86, 0)})
            s = why.sentence(ccsim.load(d + "/c"))
            env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
            cli = subprocess.run([sys.executable, "-m", "ccsim", "why", d + "/c"], env=env,
                                 capture_output=True, text=True)
        for want in ("crux wins (+6.5% allocated GPU utilization over ecmp; ideal 0.8600)",
                     "under ecmp 3 of 10 jobs", "and 2 run more than 1% slower",
                     "recover +5.0%", "adds the other 1.5 points",
                     "under crux 0 jobs are slowed by another."):
            self.assertIn(want, s)
        self.assertEqual(cli.stdout.strip(), s)

    def test_no_sentence_without_ecmp(self):
        with tempfile.TemporaryDirectory() as d:
            make_compare(d + "/c", {"crux": (0.8, 0), "taccl": (0.7, 1)})
            self.assertIsNone(why.sentence(ccsim.load(d + "/c")))


if __name__ == "__main__":
    unittest.main()
