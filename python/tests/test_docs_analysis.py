"""test_docs_analysis.py - docs/python.md's analysis ("the gain against
oversubscription, per scheduler"), run as written on a sweep written by
hand: ecmp at 0.50 cluster utilization everywhere (1.00 allocated),
crux at 0.50 / 0.55 / 0.60 and taccl at 0.50 / 0.52 / 0.54 for
oversubscription 1, 2, 4, two seeds each with the same numbers.  So the
table holds crux 0, 0.1, 0.2 and taccl 0, 0.04, 0.08 (allocated = 2 x
cluster here, and the gain a ratio)."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

from fixtures import make_sweep

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
UTIL = {"ecmp": (0.5, 0.5, 0.5), "crux": (0.5, 0.55, 0.6), "taccl": (0.5, 0.52, 0.54)}


def analysis():
    """The ```python block of docs/python.md's analysis section."""
    with open(os.path.join(ROOT, "docs", "python.md"), encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## An analysis"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


class DocsAnalysis(unittest.TestCase):
    def test_gain_table(self):
        code = analysis()
        self.assertLess(len(code.strip().splitlines()), 20)
        with tempfile.TemporaryDirectory() as d:
            points = [dict(scheduler=s, **{"sim.seed": seed, "util": UTIL[s][i],
                                           "tor_oversub_ratio": r})
                      for s in UTIL for i, r in enumerate((1, 2, 4)) for seed in (1, 2)]
            sweep = make_sweep(os.path.join(d, "results", "oversub"),
                               ["scheduler", "tor_oversub_ratio", "sim.seed"], points)
            with open(os.path.join(sweep, "summary.csv")) as f:
                rows = f.read().splitlines()
            # the gain columns the real sweep adds (allocated = 2 x cluster)
            head = rows[0].split(",")
            util = head.index("gpu_util_cluster_frac")
            base = {}
            for r in rows[1:]:
                c = r.split(",")
                if c[1] == "ecmp":
                    base[c[2]] = 2 * float(c[util])
            out = [rows[0] + ",gpu_util_allocated_frac,gain_allocated_vs_ecmp_frac"]
            for r in rows[1:]:
                c = r.split(",")
                alloc = 2 * float(c[util])
                out.append(r + f",{alloc},{alloc / base[c[2]] - 1}")
            with open(os.path.join(sweep, "summary.csv"), "w") as f:
                f.write("\n".join(out) + "\n")
            env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), MPLBACKEND="Agg")
            p = subprocess.run([sys.executable, "-c", code], cwd=d, env=env,
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(os.path.getsize(os.path.join(sweep, "gain.png")) > 0)
        table = {line.split()[0]: line.split()[1:] for line in p.stdout.splitlines()[2:]}
        self.assertEqual(p.stdout.split()[1:4], ["crux", "ecmp", "taccl"])
        self.assertEqual(table["1"], ["0.0", "0.0", "0.00"])
        self.assertEqual(table["2"], ["0.1", "0.0", "0.04"])
        self.assertEqual(table["4"], ["0.2", "0.0", "0.08"])


if __name__ == "__main__":
    unittest.main()
