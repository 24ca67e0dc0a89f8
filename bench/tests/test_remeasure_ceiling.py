"""bench/perf_eval/remeasure_ceiling.py on two small synthetic sittings whose answer is known."""
import gzip
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(BENCH, "perf_eval", "remeasure_ceiling.py")
spec = importlib.util.spec_from_file_location("remeasure_ceiling", SCRIPT)
remeasure_ceiling = importlib.util.module_from_spec(spec)
spec.loader.exec_module(remeasure_ceiling)


def write_corpus(path, records):
    with gzip.open(path, "wt") as out:
        out.write(json.dumps({"format": "glimpse-perf-corpus"}) + "\n")
        for record in records:
            out.write(json.dumps(record) + "\n")


def record(op, tile, samples, status="ok"):
    return {"op": op, "config": {"tile": tile, "unroll": 0}, "status": status,
            "samples_s": samples, "time_s": sorted(samples)[len(samples) // 2] if samples else None}


class CompareTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.first = os.path.join(self.dir.name, "first.jsonl.gz")
        self.again = os.path.join(self.dir.name, "again.jsonl.gz")

    def tearDown(self):
        self.dir.cleanup()

    def test_scores_the_shared_configurations_of_each_operator(self):
        # Operator a: four configurations 1 < 2 < 3 < 4 in the first sitting; the second swaps
        # the middle two and runs them slower still: τ (5 − 1) / 6. A fifth configuration is only
        # in the first sitting, a sixth failed in the second; neither is scored.
        first = [record("a", t, [t, t]) for t in (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)]
        again = [record("a", 1.0, [2.0, 2.0]), record("a", 2.0, [6.0, 6.0]),
                 record("a", 3.0, [4.0, 4.0]), record("a", 4.0, [8.0, 8.0]),
                 record("a", 6.0, [], status="run_error")]
        # Operator b agrees in both sittings but shares only two configurations: too few.
        first += [record("b", 1.0, [1.0, 1.0]), record("b", 2.0, [2.0, 2.0])]
        again += [record("b", 1.0, [1.0, 1.0]), record("b", 2.0, [2.0, 2.0])]
        write_corpus(self.first, first)
        write_corpus(self.again, again)
        rows = remeasure_ceiling.compare(remeasure_ceiling.ok_records(self.first),
                                         remeasure_ceiling.ok_records(self.again), min_records=3)
        self.assertEqual(len(rows), 1)
        op, n, between, halves, ratio = rows[0]
        self.assertEqual((op, n), ("a", 4))
        self.assertAlmostEqual(between, 4 / 6)
        self.assertEqual(halves, 1.0)
        # Ratios 2, 3, 4/3, 2: the median is 2.
        self.assertEqual(ratio, 2.0)

        out = subprocess.run([sys.executable, SCRIPT, self.first, self.again, "--min-records", "3"],
                             capture_output=True, text=True, check=True).stdout
        self.assertIn("1 operators, 4 configurations measured in both", out)
        self.assertIn("two sittings, mean over operators: 0.667", out)
        # The first sitting's shared records, as a corpus of their own: a's first four (the
        # fifth is not in the second file, the sixth failed there) and b's two.
        shared = os.path.join(self.dir.name, "shared.jsonl.gz")
        subprocess.run([sys.executable, SCRIPT, self.first, self.again, "--min-records", "3",
                        "--first-out", shared], capture_output=True, text=True, check=True)
        with gzip.open(shared, "rt") as lines:
            header = json.loads(next(lines))
            kept = [json.loads(line) for line in lines]
        self.assertEqual(header["records"], 6)
        self.assertEqual(header["operators"], 2)
        self.assertEqual([(r["op"], r["config"]["tile"]) for r in kept],
                         [("a", 1.0), ("a", 2.0), ("a", 3.0), ("a", 4.0), ("b", 1.0), ("b", 2.0)])
        self.assertEqual(kept[1]["samples_s"], [2.0, 2.0])  # the first sitting's times
        # sin(π/3) = 0.866, √ = 0.931, (2/π)·arcsin = 0.761.
        self.assertIn("| a | 4 | 0.667 | 0.761 | 1.000 | 2.000 |", out)

    def test_truth_tau(self):
        self.assertEqual(remeasure_ceiling.truth_tau(1.0), 1.0)
        self.assertEqual(remeasure_ceiling.truth_tau(-0.2), 0.0)
        # The truth agrees with one sitting at least as well as the sittings agree.
        for between in (0.1, 0.5, 0.85, 0.97):
            self.assertGreater(remeasure_ceiling.truth_tau(between), between)

    def test_errors_between_the_sittings(self):
        # Operator a as above: first 1, 2, 3, 4; again 2, 6, 4, 8. As predictions: errors 1, 2,
        # 1/3, 1 (mean 108.3 %); with the median ratio 2 divided out (1, 3, 2, 4): 0, 1/2, 1/3, 0
        # (20.8 %). A configuration under 5 µs in the first sitting is not scored.
        first = [record("a", t, [t, t]) for t in (1.0, 2.0, 3.0, 4.0)]
        again = [record("a", 1.0, [2.0, 2.0]), record("a", 2.0, [6.0, 6.0]),
                 record("a", 3.0, [4.0, 4.0]), record("a", 4.0, [8.0, 8.0])]
        first.append(record("a", 5.0, [1e-6, 1e-6]))
        again.append(record("a", 5.0, [9e-6, 9e-6]))
        write_corpus(self.first, first)
        write_corpus(self.again, again)
        raw, drift_free, truth, truth_robust = remeasure_ceiling.errors_between(
            remeasure_ceiling.ok_records(self.first), remeasure_ceiling.ok_records(self.again),
            ["a"])
        self.assertAlmostEqual(raw, 100 * (1 + 2 + 1 / 3 + 1) / 4)
        self.assertAlmostEqual(drift_free, 100 * (1 / 2 + 1 / 3) / 4)
        self.assertGreater(truth, 0)
        self.assertGreater(truth_robust, 0)

    def test_truth_mape(self):
        # Log ratios ±0.1: standard deviation 0.1·√2, so one sitting's σ = 0.1, and
        # e^{0.005}·(2Φ(0.1) − 1) = 1.0050125 × 0.0796557 = 8.0055 %.
        self.assertAlmostEqual(remeasure_ceiling.truth_mape([-0.1, 0.1]), 8.0055, places=3)
        # Robust: MAD 0.1, spread 0.14826, σ = 0.104836; e^{σ²/2}·(2Φ(σ) − 1) = 8.395 %.
        self.assertAlmostEqual(remeasure_ceiling.truth_mape([-0.1, 0.1], robust=True), 8.395,
                               places=2)
        # Two far ratios inflate the standard deviation's estimate, not the robust one (the MAD
        # is still 0.1).
        ratios = [-0.1, 0.1] * 10 + [2.0, -2.0]
        self.assertGreater(remeasure_ceiling.truth_mape(ratios), 20)
        self.assertAlmostEqual(remeasure_ceiling.truth_mape(ratios, robust=True), 8.395, places=2)
        self.assertIsNone(remeasure_ceiling.truth_mape([0.1]))
        self.assertIsNone(remeasure_ceiling.mape([1e-6], [2e-6]))

    def test_refuses_files_that_share_too_little(self):
        write_corpus(self.first, [record("a", 1.0, [1.0, 1.0])])
        write_corpus(self.again, [record("a", 2.0, [1.0, 1.0])])
        run = subprocess.run([sys.executable, SCRIPT, self.first, self.again],
                             capture_output=True, text=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("no operator has 10 configurations ok in both", run.stderr)


if __name__ == "__main__":
    unittest.main()
