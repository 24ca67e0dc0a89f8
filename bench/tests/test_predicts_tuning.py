"""bench/perf_eval/predicts_tuning.py on a hand-made study and evaluation reports."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(BENCH, "perf_eval", "predicts_tuning.py")
spec = importlib.util.spec_from_file_location("predicts_tuning", SCRIPT)
predicts_tuning = importlib.util.module_from_spec(spec)
spec.loader.exec_module(predicts_tuning)


def summary(quality):
    """quality: {op: {strategy: q@8}}; q@16 is q@8 + 0.1."""
    return {"operators": {
        op: {"strategies": {s: {"quality_at": {"8": q, "16": q + 0.1}} for s, q in st.items()}}
        for op, st in quality.items()}}


def evaluation(scores):
    """scores: {model path: {op: (tau, top1 slowdown, top5 slowdown)}}."""
    return {"splits": [{"scores": [
        {"predictor": "file:" + path, "by_operator": [
            {"op": op, "kendall_tau": t, "top1_slowdown": {"mean": s1},
             "top5_slowdown": {"mean": s5}} for op, (t, s1, s5) in ops.items()]}
        for path, ops in scores.items()] + [{"predictor": "roofline", "by_operator": []}]}]}


class RankStatisticsTest(unittest.TestCase):
    def test_spearman_on_worked_examples(self):
        self.assertAlmostEqual(predicts_tuning.spearman([1, 2, 3], [10, 30, 20]), 0.5)
        self.assertAlmostEqual(predicts_tuning.spearman([1, 2, 3], [3, 2, 1]), -1.0)
        self.assertIsNone(predicts_tuning.spearman([1, 1, 1], [1, 2, 3]))
        # Ties share their mean rank.
        self.assertEqual(predicts_tuning.ranks([5, 1, 5]), [1.5, 0.0, 1.5])


class JoinTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, data):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            json.dump(data, f)
        return path

    def test_a_score_that_orders_the_models_like_tuning_agrees_and_one_that_does_not(self):
        # Two operators, two models. Tuning: model a better on op1, b better on op2.
        study = self.write("summary.json", summary({
            "op1": {"t-a": 0.9, "t-b": 0.5}, "op2": {"t-a": 0.4, "t-b": 0.8}}))
        # "good" ranks like tuning on both operators (higher tau and 1/slowdown where tuning
        # is better); "bad" reverses both.
        good = self.write("good.json", evaluation({
            "/m/a.json": {"op1": (0.8, 1.1, 1.0), "op2": (0.2, 2.0, 1.5)},
            "/m/b.json": {"op1": (0.3, 1.9, 1.4), "op2": (0.7, 1.2, 1.1)}}))
        bad = self.write("bad.json", evaluation({
            "/other/a.json": {"op1": (0.1, 2.0, 1.5), "op2": (0.9, 1.0, 1.0)},
            "/other/b.json": {"op1": (0.6, 1.0, 1.0), "op2": (0.1, 3.0, 2.0)}}))
        strategies = {"t-a": "a.json", "t-b": "b.json"}
        evals = {}
        for label, path in (("good", good), ("bad", bad)):
            with open(path) as f:
                evals[label] = predicts_tuning.per_operator_scores(json.load(f))
        with open(study) as f:
            rows = predicts_tuning.join(json.load(f), strategies, evals, [8, 16])
        self.assertEqual(len(rows), 4)
        rho, within, ops = predicts_tuning.agreement(rows, "good:tau", "q8")
        self.assertEqual((within, ops), (1.0, 2))
        self.assertAlmostEqual(rho, 1.0)  # 0.2 < 0.3 < 0.7 < 0.8 and 0.4 < 0.5 < 0.8 < 0.9
        self.assertEqual(predicts_tuning.agreement(rows, "bad:top1", "q16")[1], -1.0)

        # The command line prints both tables.
        out = subprocess.run(
            [sys.executable, SCRIPT, "--summary", study, "--strategy", "t-a=/x/a.json",
             "--strategy", "t-b=/x/b.json", "--eval", "good=" + good, "--eval", "bad=" + bad],
            check=True, capture_output=True, text=True).stdout
        self.assertIn("4 (operator, model) pairs, 2 operators", out)
        self.assertIn("| good tau | +1.00 | +1.00 |", out)
        # bad tau ranks (0.1 tied twice) 0.5, 2, 3, 0.5 against tuning's 3, 1, 0, 2:
        # rho = −4.5 / √(4.5 · 5) = −0.95; within each operator the order is reversed.
        self.assertIn("| bad tau | -0.95 | -1.00 |", out)

    def test_a_report_without_per_operator_scores_is_refused(self):
        report = {"splits": [{"scores": [{"predictor": "file:/m/a.json"}]}]}
        with self.assertRaises(SystemExit) as refused:
            predicts_tuning.per_operator_scores(report)
        self.assertIn("--per-operator", str(refused.exception))


if __name__ == "__main__":
    unittest.main()
