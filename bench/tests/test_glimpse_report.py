"""bench/glimpse_report.py on small synthetic results files: the per-run metrics, Kernel Tuner's
best strategy, the issue's goals and the Markdown (and, with matplotlib, the figures) it writes.

Run: python3 -m unittest discover -p test_glimpse_report.py -s bench/tests -t bench/tests
Standard library only (the figure test is skipped without matplotlib).
"""

import importlib.util
import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(BENCH)
SCRIPT = os.path.join(BENCH, "glimpse_report.py")

sys.dont_write_bytecode = True  # no __pycache__ beside bench/glimpse_report.py
spec = importlib.util.spec_from_file_location("glimpse_report", SCRIPT)
gr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gr)

OPTIMUM = 1e-3  # seconds, every synthetic space


def run(space, strategy, seed, reach_at, failed, tool="glimpse", measurements=100):
    """A run whose best-so-far is 0.5 of the optimum at measurement 1 and the optimum itself at
    `reach_at` (None: never better than 0.5); simulated time is 2 s per measurement; its first
    batch has 8 measurements, the failures first."""
    curve = [[1, 2.0, 2 * OPTIMUM]]
    if reach_at is not None:
        curve.append([reach_at, 2.0 * reach_at, OPTIMUM])
    return {"space": space, "tool": tool, "strategy": strategy, "seed": seed,
            "measurements": measurements, "failed": failed, "stop_reason": "measurement budget",
            "simulated_s": 2.0 * measurements, "max_measurements": measurements,
            "best_curve": curve,
            "first_batch_performance": [0.0] * min(failed, 8) + [0.5] * max(8 - failed, 0)}


def results(runs, spaces=("k/GPU_A", "k/GPU_B", "q/GPU_A")):
    return {"schema": "glimpse-bench-results/1", "settings": {"max_measurements": 100},
            "spaces": [{"id": s, "group": s.split("/")[0], "device": s.split("/")[1],
                        "optimum_s": OPTIMUM} for s in spaces],
            "runs": runs}


def study():
    """glimpse reaches the optimum at 4 on GPU_A's spaces and at 20 on GPU_B's, xgb at 40;
    glimpse fails 1 in 100 measurements, xgb 10; Kernel Tuner's 'fast' beats its 'slow'."""
    runs = []
    for space in ["k/GPU_A", "k/GPU_B", "q/GPU_A"]:
        for seed in range(3):
            runs.append(run(space, "glimpse", seed, 4 if "GPU_A" in space else 20, 1))
            runs.append(run(space, "xgb", seed, 40, 10))
            runs.append(run(space, "fast", seed, 30, 2, tool="kernel_tuner"))
            runs.append(run(space, "slow", seed, None, 2, tool="kernel_tuner"))
    return results(runs)


class MetricsTest(unittest.TestCase):
    def test_measurements_to_95_percent_and_the_budget_when_never_reached(self):
        reached = run("k/GPU_A", "x", 0, 7, 0)
        self.assertEqual(gr.measurements_to(reached, OPTIMUM), (7, True))
        self.assertEqual(gr.simulated_to(reached, OPTIMUM), (14.0, True))
        # 0.5 of the optimum is below 95 %: the run counts at its budget.
        missed = run("k/GPU_A", "x", 0, None, 0, measurements=100)
        self.assertEqual(gr.measurements_to(missed, OPTIMUM), (100, False))
        self.assertEqual(gr.simulated_to(missed, OPTIMUM), (200.0, False))
        self.assertEqual(gr.measurements_to(missed, OPTIMUM, fraction=0.5), (1, True))

    def test_performance_at_a_budget_and_at_a_simulated_time(self):
        r = run("k/GPU_A", "x", 0, 7, 0)
        self.assertEqual(gr.performance_at(r, OPTIMUM, 6), 0.5)
        self.assertEqual(gr.performance_at(r, OPTIMUM, 7), 1.0)
        self.assertEqual(gr.performance_at_time(r, OPTIMUM, 13.9), 0.5)
        self.assertEqual(gr.performance_at_time(r, OPTIMUM, 14.0), 1.0)
        self.assertEqual(gr.performance_at_time(r, OPTIMUM, 1.0), 0.0)


class AgreesWithGlimpseTest(unittest.TestCase):
    def test_per_space_medians_match_the_summaries_glimpse_wrote(self):
        # bench/results/full.json.gz's summaries were computed by `glimpse bench` (C++) from the same
        # runs: the script's per-space medians must be the same numbers.
        path = os.path.join(BENCH, "results", "full.json.gz")
        spaces, runs = gr.load([path])
        report = gr.Report(spaces, runs)
        with gzip.open(path, "rt", encoding="utf-8") as f:
            summaries = json.load(f)["summaries"]
        metrics = {
            ("measurements_to_fraction", "0.95"): lambda r, o: gr.measurements_to(r, o)[0],
            ("simulated_s_to_0.95", None): lambda r, o: gr.simulated_to(r, o)[0],
            ("failed_fraction", None): lambda r, o: r["failed"] / r["measurements"],
            ("fraction_at", "25"): lambda r, o: gr.performance_at(r, o, 25),
        }
        checked, computed = 0, {}
        for summary in summaries:
            for (key, sub), metric in metrics.items():
                expected = (summary[key][sub] if sub else summary[key])["median"]
                if (summary["strategy"], key) not in computed:
                    computed[summary["strategy"], key] = report.per_space(summary["strategy"],
                                                                          metric)
                got = computed[summary["strategy"], key][summary["space"]]
                self.assertAlmostEqual(got, expected, delta=1e-6 * max(1.0, abs(expected)),
                                       msg=f"{summary['space']} {summary['strategy']} {key}")
                checked += 1
        self.assertGreaterEqual(checked, 4 * 23 * 4)


class ReportTest(unittest.TestCase):
    def setUp(self):
        data = study()
        spaces = {s["id"]: s for s in data["spaces"]}
        self.report = gr.Report(spaces, data["runs"])

    def test_kernel_tuners_best_strategy_and_the_default_strategies(self):
        self.assertEqual(self.report.peer_best, "kernel_tuner:fast")
        self.assertEqual(self.report.strategies, ["glimpse", "xgb", "kt-best"])

    def test_medians_ratios_and_pooled_failures(self):
        self.assertEqual(self.report.median_m95("glimpse"), (4.0, 3))
        self.assertEqual(self.report.median_m95("xgb"), (40.0, 3))
        per_space, of_medians = self.report.ratio_stats("xgb", "glimpse", self.report.m95)
        self.assertEqual(per_space, 10.0)  # 40/4, 40/20, 40/4
        self.assertEqual(of_medians, 10.0)
        self.assertAlmostEqual(self.report.pooled_failed("xgb"), 0.10)
        self.assertAlmostEqual(self.report.pooled_failed("glimpse"), 0.01)
        self.assertEqual(self.report.not_reached("kernel_tuner:slow"), (9, 9))

    def test_goal_c_counts_gpus_per_space_medians(self):
        self.assertEqual(self.report.within_first("glimpse", 10),
                         {"GPU_A": (2, 2), "GPU_B": (0, 1)})
        self.assertEqual(self.report.within_first("glimpse", 20),
                         {"GPU_A": (2, 2), "GPU_B": (1, 1)})

    def test_first_batch_ranks_are_sorted_best_first(self):
        curve = self.report.first_batch_curve("xgb", "k/GPU_A")
        self.assertEqual(curve, sorted(curve, reverse=True))
        self.assertEqual(curve.count(0.0), 8)  # xgb's 10 failures fill its 8-entry batch
        self.assertEqual(self.report.first_batch_curve("glimpse", "k/GPU_A")[-1], 0.0)
        self.assertAlmostEqual(self.report.first_batch_failed("glimpse"), 1 / 8)


class ScriptTest(unittest.TestCase):
    def write(self, directory, name, data):
        path = os.path.join(directory, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f)
        return path

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                              cwd=REPO, check=False)

    def test_markdown_judges_the_goals(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = self.write(tmp, "study.json", study())
            out = os.path.join(tmp, "report.md")
            done = self.run_script(path, "-o", out, "--no-figures")
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(out, encoding="utf-8") as f:
                text = f.read()
        self.assertIn("| (a) measurements to 95 %: xgb ÷ glimpse (median over spaces) | "
                      "40.0 ÷ 4.0 = 10.00", text)
        self.assertIn("0.1000 ÷ 0.0100 = 10.00 | ≥ 5 | yes", text)
        self.assertIn("1 of 2 (GPU_A)", text)
        self.assertIn("`kt-best` is Kernel Tuner's `fast`", text)
        for heading in ["Fig. 4", "Fig. 5", "Fig. 6", "Fig. 7", "Table 2"]:
            self.assertIn(heading, text)

    def test_failures_without_a_space_gives_goal_b_both_ways(self):
        data = study()
        for r in data["runs"]:
            if r["space"] == "q/GPU_A" and r["strategy"] == "glimpse":
                r["failed"] = 50
        with tempfile.TemporaryDirectory() as tmp:
            path = self.write(tmp, "study.json", data)
            out = os.path.join(tmp, "report.md")
            done = self.run_script(path, "-o", out, "--no-figures",
                                   "--failures-without", "q/GPU_A")
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(out, encoding="utf-8") as f:
                text = f.read()
        # With q/GPU_A: (1 + 1 + 50) / 300 failed for glimpse against 0.1 for xgb.
        self.assertIn("0.1000 ÷ 0.1733 = 0.58 | ≥ 5 | no", text)
        self.assertIn("| (b') the same without q/GPU_A | 0.1000 ÷ 0.0100 = 10.00 | ≥ 5 | yes",
                      text)
        self.assertIn("Without q/GPU_A (`--failures-without`):", text)

    def test_seeds_keeps_the_first_seeds_runs_only(self):
        data = study()
        for r in data["runs"]:  # glimpse's seeds 1 and 2 now take 90 measurements
            if r["strategy"] == "glimpse" and r["seed"] > 0:
                r["best_curve"][-1][0] = 90
        with tempfile.TemporaryDirectory() as tmp:
            path = self.write(tmp, "s.json", data)
            every = self.run_script(path, "--no-figures")
            first = self.run_script(path, "--no-figures", "--seeds", "1")
        self.assertIn("40.0 ÷ 90.0 = 0.44", every.stdout)
        self.assertIn("40.0 ÷ 4.0 = 10.00", first.stdout)

    def test_without_the_subjects_runs_the_goals_wait(self):
        data = study()
        data["runs"] = [r for r in data["runs"] if r["strategy"] != "glimpse"]
        with tempfile.TemporaryDirectory() as tmp:
            done = self.run_script(self.write(tmp, "s.json", data), "--no-figures")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("No runs of `glimpse` in these files", done.stdout)
        self.assertNotIn("| glimpse |", done.stdout)

    def test_a_run_in_two_files_and_an_unknown_strategy_are_errors(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = self.write(tmp, "study.json", study())
            twice = self.run_script(path, path, "--no-figures")
            unknown = self.run_script(path, "--no-figures", "--strategies", "xgbb")
        self.assertNotEqual(twice.returncode, 0)
        self.assertIn("is in both", twice.stderr)
        self.assertNotEqual(unknown.returncode, 0)
        self.assertIn("no runs of strategy xgbb", unknown.stderr)

    @unittest.skipUnless(importlib.util.find_spec("matplotlib"), "matplotlib is not installed")
    def test_figures_are_written_and_linked(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = self.write(tmp, "study.json", study())
            out = os.path.join(tmp, "report.md")
            done = self.run_script(path, "-o", out, "--figures", os.path.join(tmp, "fig", "g"))
            self.assertEqual(done.returncode, 0, done.stderr)
            names = sorted(os.listdir(os.path.join(tmp, "fig")))
            with open(out, encoding="utf-8") as f:
                text = f.read()
        self.assertEqual(names, ["g_fig4_first_batch.png", "g_fig5_quality.png",
                                 "g_fig6_measurements.png", "g_fig7_failed.png"])
        self.assertIn("](fig/g_fig6_measurements.png)", text)


if __name__ == "__main__":
    unittest.main()
