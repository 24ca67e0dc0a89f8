"""bench/perf_tuning/finished_tasks_db.py (a stopped long run's finished tasks, another run's
records for the rest) on synthetic exports.

Run: python3 -m unittest discover -p test_finished_tasks_db.py -s bench/tests -t bench/tests
Standard library only.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(BENCH, "perf_tuning", "finished_tasks_db.py")


def workload(key):
    return {"type": "workload", "key": key, "name": f"op:{key}"}


def record(key, time_s, status="ok"):
    return {"type": "record", "workload_key": key, "status": status, "time_s": time_s}


def write(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


class FinishedTasksDbTest(unittest.TestCase):
    def test_finished_tasks_from_the_long_run_the_rest_from_the_other(self):
        with tempfile.TemporaryDirectory() as d:
            long_run, other, out = (os.path.join(d, n) for n in ("long", "other", "out"))
            # a: 3 records in the long run (one failed) — finished at budget 3; b: 2 — not.
            write(long_run, [workload("a"), workload("b"), record("a", 1.0),
                             record("a", 0.0, "runtime_error"), record("a", 0.5),
                             record("b", 0.1), record("b", 0.2)])
            write(other, [workload("a"), workload("b"), workload("c"), record("a", 9.0),
                          record("b", 8.0), record("c", 7.0)])
            result = subprocess.run([sys.executable, SCRIPT, "--finished", long_run, "--budget",
                                     "3", "--rest", other, "--out", out],
                                    capture_output=True, text=True, check=True)
            with open(out) as f:
                rows = [json.loads(line) for line in f]
        self.assertIn("1 finished tasks", result.stdout)
        self.assertEqual([r["key"] for r in rows if r["type"] == "workload"], ["a", "b", "c"])
        merged = sorted((r["workload_key"], r["time_s"]) for r in rows if r["type"] == "record")
        # a: the long run's three records (its failure kept); b and c: the other run's.
        self.assertEqual(merged, [("a", 0.0), ("a", 0.5), ("a", 1.0), ("b", 8.0), ("c", 7.0)])

    def test_a_budget_below_one_is_refused(self):
        result = subprocess.run([sys.executable, SCRIPT, "--finished", "x", "--budget", "0",
                                 "--rest", "y", "--out", "z"], capture_output=True, text=True)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("--budget", result.stderr)


if __name__ == "__main__":
    unittest.main()
