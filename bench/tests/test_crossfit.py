"""bench/perf_tuning/crossfit.py (a study's runs scored with the best configuration chosen in one
re-timing and timed in another): the choice, the single re-timing's ceiling, the halves of one
re-timing's passes, the scores on hand-computed runs, and the command line on a written study.

Run: python3 -m unittest discover -p test_crossfit.py -s bench/tests -t bench/tests
Standard library only.
"""

import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(BENCH, "perf_tuning", "crossfit.py")
sys.path.insert(0, os.path.join(BENCH, "perf_tuning"))
import crossfit  # noqa: E402

# Re-timing A calls x3 the fastest (0.9 s) and B calls x2 the fastest (1.0 s); x3 reads 1.2 s in B.
TIMES_A = {"x1": 2.0, "x2": 1.0, "x3": 0.9}
TIMES_B = {"x1": 2.0, "x2": 1.0, "x3": 1.2}


class CrossfitTest(unittest.TestCase):
    def test_the_best_is_chosen_among_configurations_both_timed(self):
        self.assertEqual(crossfit.chosen_best(TIMES_A, TIMES_B), ("x3", 1.2))
        self.assertEqual(crossfit.chosen_best(TIMES_B, TIMES_A), ("x2", 1.0))
        # x3 failed in B: A's choice falls to the fastest that B also timed.
        self.assertEqual(crossfit.chosen_best(TIMES_A, {"x1": 2.0, "x2": 1.1}), ("x2", 1.1))
        self.assertIsNone(crossfit.chosen_best({"x1": 1.0}, {"x2": 1.0}))

    def test_a_single_retiming_flatters_its_own_best(self):
        # The configuration A calls best reads 1.0 / 1.2 of B's own fastest; B's best 0.9 / 1.0.
        self.assertAlmostEqual(crossfit.single_retiming_ceiling(TIMES_A, TIMES_B), 1.0 / 1.2)
        self.assertAlmostEqual(crossfit.single_retiming_ceiling(TIMES_B, TIMES_A), 0.9)
        self.assertEqual(crossfit.single_retiming_ceiling(TIMES_A, TIMES_A), 1.0)

    def test_passes_split_into_odd_and_even_halves_at_their_fastest(self):
        passes = {"op": {"x1": [3.0, 2.0, 1.0, 4.0], "x2": [None, 2.5, None, 1.5],
                         "x3": [1.0, None, 2.0, None]}}
        odd, even = crossfit.split_passes(passes)
        self.assertEqual(odd, {"op": {"x1": 1.0, "x3": 1.0}})  # x2 failed on both odd passes
        self.assertEqual(even, {"op": {"x1": 2.0, "x2": 1.5}})

    def test_scores_of_a_run_holding_the_configuration_b_calls_best(self):
        # One run: x1 at measurement 1, x2 (its incumbent from measurement 2 on); 3 measurements.
        runs = {1: ({"op": [(1, "x1"), (2, "x2")]}, {"op": [2.0, 1.0, 3.0]})}
        scores = crossfit.operator_scores(runs, "op", 2, TIMES_A, TIMES_B)
        self.assertAlmostEqual(scores["a"][0], 0.9)  # 0.9 / 1.0
        self.assertAlmostEqual(scores["b"][0], 1.0)  # 1.0 / 1.0
        # A → B: x3 chosen, 1.2 in B, over x2's 1.0 = 1.2; B → A: x2 over itself = 1.0.
        self.assertAlmostEqual(scores["crossfit"][0], 1.1)
        # After one measurement (x1): A 0.45, B 0.5, cross-fitted (1.2 / 2.0 + 1.0 / 2.0) / 2.
        at1 = crossfit.operator_scores(runs, "op", 1, TIMES_A, TIMES_B)
        self.assertAlmostEqual(at1["a"][0], 0.45)
        self.assertAlmostEqual(at1["crossfit"][0], 0.55)
        # Measurements to 95 %: A never (0.45, 0.9, 0.9: length + 1), B and cross-fitted at 2.
        self.assertEqual(scores["to_level"], {"a": [4], "b": [2], "crossfit": [2]})
        self.assertEqual(crossfit.operator_scores(runs, "op", 2, TIMES_A, TIMES_B, 0.85)
                         ["to_level"]["a"], [2])
        # A run shorter than the checkpoint is left out.
        empty = {"a": [], "b": [], "crossfit": []}
        self.assertEqual(crossfit.operator_scores(runs, "op", 4, TIMES_A, TIMES_B),
                         dict(empty, to_level=empty))

    def test_fewer_passes_let_one_lucky_pass_set_the_best_known(self):
        # x1 ran fast once (1.0) and slow twice; x2 steadily at 2.0. The run holds x2.
        passes = {"op": {"x1": [1.0, 3.0, 3.0], "x2": [2.0, 2.0, None]}}
        self.assertEqual(crossfit.fastest_of(passes, (1, 2)), {"op": {"x1": 3.0, "x2": 2.0}})
        self.assertEqual(crossfit.fastest_of(passes, (2,)), {"op": {"x1": 3.0}})
        study = {"ops": ["op"], "canonical": {}}
        runs = {"hw": {1: ({"op": [(1, "x2")]}, {"op": [2.0]})}}
        # One pass: pass 1 has x1's lucky 1.0 (0.5), pass 2 has x2 fastest (1.0), pass 3 failed x2.
        self.assertEqual(crossfit.subset_scores(study, passes, runs, 1, 1), {"hw": [0.5, 1.0, 0.0]})
        # Two passes: {1,2} and {1,3} hold the lucky pass (0.5), {2,3} not (1.0).
        self.assertEqual(crossfit.subset_scores(study, passes, runs, 1, 2),
                         {"hw": [0.5, 0.5, 1.0]})


class CrossfitCommandTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.out = self.dir.name
        with open(os.path.join(self.out, "study.json"), "w") as f:
            json.dump({"ops": ["conv2d:a"], "canonical": {}, "strategies": ["hw"],
                       "seeds": [1], "budget": 2}, f)
        x = lambda v: json.dumps({"x": v}, sort_keys=True)
        record = lambda v, t: {"type": "record", "workload_key": "w", "status": "ok",
                               "time_s": t, "config": {"x": v}}
        with gzip.open(os.path.join(self.out, "hw-s1.jsonl.gz"), "wt") as f:
            f.write(json.dumps({"type": "workload", "key": "w", "name": "conv2d:a"}) + "\n")
            f.write(json.dumps(record(1, 2.0)) + "\n" + json.dumps(record(2, 1.0)) + "\n")
        # Four passes: odd ones (1st, 3rd) give TIMES_A's x1/x2/x3 as 2.0/1.0/0.9, even ones
        # TIMES_B's 2.0/1.0/1.2.
        self.split = os.path.join(self.out, "split.json")
        with open(self.split, "w") as f:
            json.dump({"retimed": {"conv2d:a": {x(1): 2.0, x(2): 1.0, x(3): 0.9}},
                       "passes": {"conv2d:a": {x(1): [2.0, 2.0, 2.5, 2.1],
                                               x(2): [1.1, 1.0, 1.0, None],
                                               x(3): [0.9, 1.3, 0.95, 1.2]}}}, f)

    def crossfit(self, *args):
        return subprocess.run([sys.executable, SCRIPT, self.out, *args], capture_output=True,
                              text=True)

    def test_one_retimings_halves_score_the_run(self):
        result = os.path.join(self.out, "result.json")
        done = self.crossfit("hw", "--split", self.split, "--at", "2", "--json", result)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(result) as f:
            row = json.load(f)["operators"]["conv2d:a"]
        self.assertAlmostEqual(row["ceiling_a_to_b"], 1.0 / 1.2)
        self.assertAlmostEqual(row["strategies"]["hw"]["crossfit"], 1.1)
        self.assertIn("| `conv2d:a` | 0.833 / 0.900 | 0.900 / 1.000 | 1.100 |", done.stdout)
        self.assertEqual(row["strategies"]["hw"]["to_level"], {"a": 3, "b": 2, "crossfit": 2})
        self.assertIn("| `conv2d:a` | 3 / 2 | 2 |", done.stdout)

    def test_subsets_of_the_passes_are_scored(self):
        done = self.crossfit("hw", "--split", self.split, "--at", "2", "--subsets", "2")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("(every such subset: 6)", done.stdout)
        # The run holds x2 (passes 1.1, 1.0, 1.0, failed) against x3 (0.9, 1.3, 0.95, 1.2): pairs
        # {1,2} and {1,3} 1.0 / 0.9, {1,4} 0.9 / 1.1, {2,3} and {3,4} 0.95 / 1.0, {2,4} 1.0 (x3's
        # 1.2 slower): 0.818, 0.9, 0.9, 0.95, 0.95, 1.0.
        self.assertIn("| hw | 0.818 | 0.818 | 0.925 | 1.000 | 1.000 | 3 of 6 |", done.stdout)
        done = self.crossfit("hw", "--split", self.split, "--subsets", "5")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("--subsets 5: between 1 and the 4 passes", done.stderr)

    def test_a_retiming_without_its_passes_is_refused(self):
        with open(self.split) as f:
            report = json.load(f)
        del report["passes"]
        with open(self.split, "w") as f:
            json.dump(report, f)
        done = self.crossfit("hw", "--split", self.split)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("no times per pass", done.stderr)

    def test_a_strategy_with_no_run_is_refused(self):
        done = self.crossfit("nothing", "--split", self.split)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("strategy nothing: no run of it", done.stderr)


if __name__ == "__main__":
    unittest.main()
