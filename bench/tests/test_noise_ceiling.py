"""bench/perf_eval/noise_ceiling.py on small synthetic corpora whose answer is known."""
import gzip
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(BENCH, "perf_eval", "noise_ceiling.py")
spec = importlib.util.spec_from_file_location("noise_ceiling", SCRIPT)
noise_ceiling = importlib.util.module_from_spec(spec)
spec.loader.exec_module(noise_ceiling)


def write_corpus(path, records, fmt="glimpse-perf-corpus"):
    with gzip.open(path, "wt") as out:
        out.write(json.dumps({"format": fmt, "machine": {"cpu": "test"}}) + "\n")
        for record in records:
            out.write(json.dumps(record) + "\n")


def record(op, samples, status="ok"):
    return {"op": op, "status": status, "samples_s": samples,
            "time_s": sorted(samples)[len(samples) // 2]}


class KendallTauTest(unittest.TestCase):
    def test_agreeing_reversed_and_tied_orders(self):
        self.assertEqual(noise_ceiling.kendall_tau_b([1, 2, 3, 4], [10, 20, 30, 40]), 1.0)
        self.assertEqual(noise_ceiling.kendall_tau_b([1, 2, 3, 4], [4, 3, 2, 1]), -1.0)
        # One swapped pair of six: (5 − 1) / 6.
        self.assertAlmostEqual(noise_ceiling.kendall_tau_b([1, 2, 3, 4], [1, 3, 2, 4]), 4 / 6)
        self.assertIsNone(noise_ceiling.kendall_tau_b([1, 1, 1], [1, 2, 3]))


class CeilingTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "c.jsonl.gz")

    def tearDown(self):
        self.dir.cleanup()

    def test_halves_that_agree_and_single_runs_that_do_not(self):
        # Operator a: the even samples order the records 1 < 2 < 3 < 4, and so do the odd ones,
        # but the first and the last sample of records 2 and 3 are swapped.
        a = [record("a", [1.0, 1.0, 1.0]), record("a", [2.0, 2.0, 3.4]),
             record("a", [3.0, 3.0, 2.6]), record("a", [4.0, 4.0, 4.0])]
        # Operator b: the halves disagree on one pair of six. A failed record and a one-sample
        # record are not scored; operator c has too few records.
        b = [record("b", [1.0, 1.0]), record("b", [2.0, 3.0]), record("b", [3.0, 2.0]),
             record("b", [4.0, 4.0]), record("b", [9.0], status="ok"),
             record("b", [0.1, 0.1], status="run_error")]
        c = [record("c", [1.0, 2.0])]
        write_corpus(self.path, a + b + c)
        rows = noise_ceiling.ceiling(noise_ceiling.records_by_operator(self.path), min_records=4)
        self.assertEqual([(op, n) for op, n, _, _ in rows], [("a", 4), ("b", 4)])
        by_op = {op: (halves, single) for op, _, halves, single in rows}
        self.assertEqual(by_op["a"], (1.0, 4 / 6))
        self.assertAlmostEqual(by_op["b"][0], 4 / 6)

        out = subprocess.run([sys.executable, SCRIPT, self.path, "--min-records", "4"],
                             capture_output=True, text=True, check=True).stdout
        self.assertIn("2 operators, 8 records", out)
        self.assertIn("mean over operators: 0.833 (lowest 0.667)", out)

    def test_refuses_what_is_not_a_corpus(self):
        write_corpus(self.path, [record("a", [1.0, 2.0])], fmt="glimpse-db")
        run = subprocess.run([sys.executable, SCRIPT, self.path], capture_output=True, text=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("not a glimpse performance corpus", run.stderr)
        write_corpus(self.path, [record("a", [1.0, 2.0])])
        run = subprocess.run([sys.executable, SCRIPT, self.path], capture_output=True, text=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("no operator has 20 ok records", run.stderr)


if __name__ == "__main__":
    unittest.main()
