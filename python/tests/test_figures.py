"""test_figures.py - every figure draws the values worked out here by hand
from fixtures.py's numbers: the right runs grouped, only seeds averaged,
windows never; axes from 0; zero white; a grid, not a row; PNG and PDF."""
import math
import os
import subprocess
import sys
import tempfile
import unittest

import matplotlib.colors as mcolors

from fixtures import make_sweep

import ccsim
from ccsim import figures

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

# The case: channels swept AFTER topology (plot.py once stopped
# at the topology column and averaged channels away as if seeds).
# util = base + 0.01 * channels + 0.002 * (seed - 1), crux 0.05 above.
KEYS = ["scheduler", "topology", "sim.channels", "sim.seed"]


def util_of(sched, topo, ch, seed):
    base = 0.5 if topo == "fat-tree:k=4" else 0.4
    return base + 0.01 * ch + 0.002 * (seed - 1) + (0.05 if sched == "crux" else 0)


POINTS = [dict(scheduler=s, topology=t, **{"sim.channels": c, "sim.seed": seed,
                                           "util": util_of(s, t, c, seed)})
          for s in ("ecmp", "crux") for t in ("fat-tree:k=4", "fat-tree:k=4,oversub=2")
          for c in (1, 2, 4) for seed in (1, 2)]


class Figures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = make_sweep(os.path.join(cls.tmp.name, "sw"), KEYS, POINTS)
        cls.res = ccsim.load(cls.dir)
        cls.plan = ccsim.plan(cls.res)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_groups_by_every_varying_column_but_the_seed(self):
        self.assertEqual(self.plan.hue, "scheduler")
        self.assertEqual(sorted(self.plan.groups), ["channels", "topology"])
        self.assertEqual(self.plan.averaged, ["seed"])
        # 2 seeds per value: "mean over 2 runs ... seeds 1, 2"
        self.assertIn("mean over 2 runs", self.plan.averaged_note())
        self.assertIn("seeds 1, 2", self.plan.averaged_note())

    def test_util_bars_values(self):
        fig, data = figures.util_bars(self.res, self.plan)
        self.assertEqual(len(data), 2 * 2 * 3)  # hue x topology x channels
        for _, r in data.iterrows():
            # mean of seeds 1 and 2: base + 0.01 ch + 0.001 (+ 0.05 crux);
            # sample sd of {x, x + 0.002}: 0.002 / sqrt(2)
            want = util_of(r["scheduler"], r["topology"], r["channels"], 1) + 0.001
            self.assertAlmostEqual(r["mean"], want, places=12)
            self.assertAlmostEqual(r["std"], 0.002 / math.sqrt(2), places=12)
            self.assertEqual(r["runs"], 2)
            base = util_of("ecmp", r["topology"], r["channels"], 1) + 0.001
            self.assertAlmostEqual(r["gain_frac"], want / base - 1, places=12)
        for ax in fig.axes:
            if ax.get_visible() and ax.get_ylabel():
                self.assertEqual(ax.get_ylim()[0], 0.0)
        figures.plt.close(fig)

    def test_refuses_to_average_windows(self):
        points = [dict(scheduler="ecmp", **{"sim.start_s": s, "sim.end_s": s + 120,
                                            "util": 0.5}) for s in (0, 300)]
        with tempfile.TemporaryDirectory() as d:
            res = ccsim.load(make_sweep(d + "/w", ["scheduler", "sim.start_s", "sim.end_s"],
                                        points))
            plan = ccsim.plan(res)
            self.assertEqual(plan.groups, ["sim_start_s", "sim_end_s"])  # not averaged
            with self.assertRaises(ccsim.PlotError):
                ccsim.plan(res, average=["sim_start_s"])

    def test_util_time_values(self):
        fig, data = figures.util_time(self.res, self.plan)
        self.assertEqual(len(data), 12)
        for _, r in data.iterrows():
            # points u and u + 0.1, each the mean of two seeds: mean u + 0.05
            u = util_of(r["hue"], r["topology"], r["channels"], 1) + 0.001
            self.assertAlmostEqual(r["mean"], u + 0.05, places=12)
            self.assertEqual((r["runs"], r["points"]), (2, 2))
        for ax in fig.axes:
            if ax.get_visible() and ax.get_ylabel():
                self.assertEqual(ax.get_ylim()[0], 0.0)
        figures.plt.close(fig)

    def test_slowdown_cdf_values(self):
        fig, data = figures.slowdown_cdf(self.res, self.plan)
        for _, r in data.iterrows():
            # 3 jobs that ran in each of 2 runs (the skipped one left out);
            # slowdowns 1 + u(seed 1) and 1 + u(seed 2): the max is seed 2's
            self.assertEqual(r["jobs"], 6)
            self.assertAlmostEqual(r["max"], 1 + util_of(r["hue"], r["topology"],
                                                          r["channels"], 2), places=12)
        for ax in fig.axes:
            if ax.get_visible() and ax.get_ylabel():
                self.assertEqual(ax.get_ylim(), (0.0, 1.02))
                line = ax.get_lines()[0]
                self.assertEqual(line.get_ydata()[0], 0.0)  # the CDF starts at 0
        figures.plt.close(fig)

    def test_link_occupancy_values_and_white_zero(self):
        fig, data = figures.link_occupancy(self.res, self.plan)
        pcie = data[data["tier"] == "pcie"]
        self.assertTrue((pcie["max"] == 0).all() and (pcie["zero_frac"] == 1).all())
        agg = data[data["tier"] == "tor_agg"]
        for _, r in agg.iterrows():
            u = util_of(r["hue"], r["topology"], r["channels"], 1) + 0.001
            self.assertAlmostEqual(r["mean"], 10 * u, places=10)
        images = [im for ax in fig.axes for im in ax.get_images()]
        self.assertEqual(len(images), 12)
        for im in images:
            self.assertEqual(mcolors.to_hex(im.get_cmap().get_under()), "#ffffff")
            self.assertGreater(im.norm.vmin, 0)  # so exactly 0 is "under": white
        figures.plt.close(fig)

    def test_groups_make_a_grid(self):
        # 12 panels: 3 rows of 4, not a row of 12
        fig, axes = figures.grid(12, 4.0, 3.0)
        self.assertEqual(len(axes), 12)
        self.assertEqual(len({round(ax.get_position().y0, 3) for ax in axes}), 3)
        self.assertEqual(list(fig.get_size_inches()), [16.0, 3.0 * 3 + 0.9])
        figures.plt.close(fig)
        fig, data = figures.slowdown_cdf(self.res, self.plan)
        visible = [ax for ax in fig.axes if ax.get_visible() and ax.get_ylabel()]
        self.assertEqual(len(visible), 6)  # 2 topologies x 3 channel counts
        self.assertEqual(len({round(ax.get_position().y0, 3) for ax in visible}), 2)
        figures.plt.close(fig)

    def test_plot_cli_formats_and_choices(self):
        out = os.path.join(self.tmp.name, "figs")
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "plot.py"), self.dir,
                            "--out", out, "--x", "topology", "--facet", "channels",
                            "--format", "png,pdf"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        for name in figures.FIGURES:
            with open(os.path.join(out, name + ".png"), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            with open(os.path.join(out, name + ".pdf"), "rb") as f:
                self.assertEqual(f.read(5), b"%PDF-")
        with open(os.path.join(out, "util_bars.data.csv")) as f:
            header = f.readline().strip().split(",")
        self.assertEqual(header[:3], ["channels", "topology", "scheduler"])  # facet, x, hue
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "plot.py"), self.dir,
                            "--out", out, "--average", "sim_start_s"], capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 0, p.stderr)  # one window: nothing refused
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "plot.py"), self.dir,
                            "--out", out, "--x", "nosuch"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no column 'nosuch'", p.stderr)


if __name__ == "__main__":
    unittest.main()
