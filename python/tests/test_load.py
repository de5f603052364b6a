"""test_load.py - ccsim.load, run, compare and report on small real runs of
the binary ($CCSIM_BINARY, set by meson): every table has one row per
run, job, interval or tier-interval, counted here from the files with the
csv module, with the run's configuration merged in; the configuration
columns are those the binary writes."""
import csv
import glob
import os
import subprocess
import tempfile
import unittest

import ccsim
from ccsim.columns import CONFIG
from ccsim.runner import binary

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EX1 = os.path.join(ROOT, "examples", "crux-example1.json")
HOSTS4 = os.path.join(ROOT, "examples", "scenario-4hosts.json")


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class Load(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.compare_dir = os.path.join(cls.tmp.name, "cmp")
        cls.cmp = ccsim.compare(out=cls.compare_dir, scenario=HOSTS4, scheds=["ecmp", "crux", "ideal"],
                                jobs=2)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_config_columns_are_the_binary_header(self):
        header = list(rows(os.path.join(self.compare_dir, "ecmp", "summary.csv"))[0])
        self.assertEqual(header[:len(CONFIG)], CONFIG)
        self.assertEqual(header[len(CONFIG)], "jobs")  # the results follow

    def test_run(self):
        out = os.path.join(self.tmp.name, "ex1")
        res = ccsim.run(out=out, scenario=EX1, sched="fixed")
        self.assertEqual(res.kind, "run")
        self.assertEqual(len(res.runs), 1)
        r = res.runs.iloc[0]
        # Crux example 1 under its fixed priorities: 1808 busy GPU-s of
        # 4 GPUs x 1203 s (docs/usage.md's example row)
        self.assertEqual((r["scheduler"], r["seed"], r["placement"]), ("fixed", 1, "recorded"))
        self.assertAlmostEqual(r["gpu_util_cluster_frac"], 1808 / (4 * 1203), places=9)
        self.assertEqual(len(res.jobs), len(rows(os.path.join(out, "jobs.csv"))))
        self.assertTrue((res.jobs["topology"] == r["topology"]).all())
        # without out: the folder ccsim names, results/SCENARIO_TOPOLOGY_SCHEDULER_HASH
        here = os.getcwd()
        os.chdir(self.tmp.name)
        try:
            res = ccsim.run(scenario=EX1, sched="fixed", seed=2)
        finally:
            os.chdir(here)
        self.assertTrue(res.path.startswith("results/crux-example1_"), res.path)
        self.assertEqual(res.runs.iloc[0]["seed"], 2)

    def test_compare(self):
        res = self.cmp
        self.assertEqual(res.kind, "compare")
        self.assertEqual(list(res.runs["scheduler"]), ["ecmp", "crux", "ideal"])
        by = res.runs.set_index("scheduler")
        self.assertEqual(by.loc["ecmp", "gain_vs_ecmp_frac"], 0)
        self.assertAlmostEqual(by.loc["ideal", "gain_allocated_vs_ecmp_frac"],
                               by.loc["ideal", "gpu_util_allocated_frac"]
                               / by.loc["ecmp", "gpu_util_allocated_frac"] - 1, places=9)
        for name in ("jobs", "timeseries", "links"):
            table = getattr(res, name)
            n = sum(len(rows(os.path.join(self.compare_dir, s, name + ".csv")))
                    for s in ("ecmp", "crux", "ideal"))
            self.assertEqual(len(table), n, name)
            self.assertEqual(list(table.columns[:2]), ["run", res.config_columns[0]])
            for s in ("ecmp", "crux", "ideal"):
                self.assertTrue((table.loc[table["run"] == s, "scheduler"] == s).all())
        self.assertIn("capacity_Gbps", res.links.columns)
        self.assertTrue(((res.jobs["status"] == "ran") == (res.jobs["ran"] == 1)).all())

    def test_sweep(self):
        sw = os.path.join(self.tmp.name, "sweep.json")
        with open(sw, "w") as f:
            f.write('{"base": "%s", "grid": {"scheduler": ["ecmp", "ideal"], '
                    '"sim.channels": [1, 2]}}' % HOSTS4)
        res = ccsim.sweep(sw, os.path.join(self.tmp.name, "sw"), jobs=2)
        self.assertEqual(res.kind, "sweep")
        self.assertEqual(res.config_columns[:2], ["scheduler", "channels"])
        self.assertEqual(sorted(res.runs["channels"]), [1, 1, 2, 2])
        plan = ccsim.plan(res)
        self.assertEqual((plan.hue, plan.groups), ("scheduler", ["channels"]))
        self.assertEqual(len(res.timeseries),
                         sum(len(rows(p)) for p in glob.glob(os.path.join(
                             self.tmp.name, "sw", "runs", "*", "timeseries.csv"))))

    def test_errors(self):
        with self.assertRaises(ccsim.ResultsError):
            ccsim.load(self.tmp.name + "/nothing")
        with self.assertRaises(ccsim.CcsimError) as e:
            ccsim.run(out=os.path.join(self.tmp.name, "bad"), sched="no-such-scheduler")
        self.assertEqual(e.exception.status, 1)

    def test_report(self):
        page = ccsim.report(self.compare_dir)
        with open(page, encoding="utf-8") as f:
            text = f.read()
        self.assertEqual(text.count("<img"), 4)
        self.assertNotIn("src=\"http", text)  # self-contained
        # the why sentence: both 16-GPU jobs span the two switches, so under
        # ecmp both share the one switch-to-switch link
        self.assertTrue("under ecmp 2 of 2 jobs share a host or a network link" in text,
                        "no why sentence")
        util = self.cmp.runs.set_index("scheduler").loc["ideal", "gpu_util_allocated_frac"]
        self.assertTrue(f"{util:.4f}" in text, "no summary value")

    def test_command_line(self):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        p = subprocess.run(["/usr/bin/python3", "-c", "import ccsim; print(ccsim.load("
                            f"{self.compare_dir!r}).runs[['scheduler', 'seed']])"],
                           capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("ideal", p.stdout)
        self.assertTrue(os.access(binary(), os.X_OK))


if __name__ == "__main__":
    unittest.main()
