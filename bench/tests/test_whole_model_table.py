"""bench/perf_tuning/whole_model_table.py (whole-model tuning runs side by side) on synthetic
tune logs and database exports: Σ weight × best after k measurements per task, failed
measurements counted but never best, '—' where a task has fewer than k, the median quality.

Run: python3 -m unittest discover -p test_whole_model_table.py -s bench/tests -t bench/tests
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
SCRIPT = os.path.join(BENCH, "perf_tuning", "whole_model_table.py")


def write_run(directory, name, weights, measurements):
    """weights: {op: weight}; measurements: {op: [time_s or None (failed), …]} in start order."""
    log = os.path.join(directory, name + ".log")
    with open(log, "w") as out:
        for i, (op, w) in enumerate(weights.items()):
            out.write(f"task {i + 1}/{len(weights)}: {op} (weight {w}, budget 64)\n")
            out.write(f"tune {op}: 1/64 measured, 0 failed\n")
    export = os.path.join(directory, name + ".jsonl.gz")
    rows, started = [], 0.0
    for i, (op, times) in enumerate(measurements.items()):
        rows.append({"type": "workload", "key": f"k{i}", "name": op})
        for t in times:
            started += 1.0
            rows.append({"type": "record", "workload_key": f"k{i}",
                         "status": "ok" if t is not None else "runtime_error",
                         "time_s": t if t is not None else 0.0, "started_at": started})
    rows.reverse()  # the script orders by start time, not by file order
    rows.sort(key=lambda r: r["type"] != "workload")
    with gzip.open(export, "wt") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    return f"{name}={log},{export}"


class WholeModelTableTest(unittest.TestCase):
    def run_table(self, *runs, at="1,2,3", extra=()):
        result = subprocess.run([sys.executable, SCRIPT, *[a for r in runs for a in ("--run", r)],
                                 "--at", at, *extra], capture_output=True, text=True, check=True)
        return [line for line in result.stdout.splitlines() if line.startswith("| ")][1:]

    def test_sums_after_k_and_quality(self):
        with tempfile.TemporaryDirectory() as d:
            weights = {"conv:a": 2, "dense:b": 1}
            # run A: conv 4, failed, 1 ms; dense 3, 2, 5 ms.
            a = write_run(d, "A", weights, {"conv:a": [4e-3, None, 1e-3],
                                            "dense:b": [3e-3, 2e-3, 5e-3]})
            # run B: conv 2, 2 ms; dense 1 ms (only one measurement).
            b = write_run(d, "B", weights, {"conv:a": [2e-3, 2e-3], "dense:b": [1e-3]})
            rows = self.run_table(a, b)
        # A after 1: 2·4 + 3 = 11; after 2: 2·4 + 2 = 10 (the failure is never best); after 3:
        # 2·1 + 2 = 4. Quality: conv 1/1, dense 1/2 → median 0.75.
        self.assertEqual(rows[0], "| A | 2 | 11.00 / 10.00 / 4.00 | 0.75 |")
        # B after 1: 2·2 + 1 = 5; dense has one measurement, so after 2 and 3: '—'. Quality:
        # conv 1/2, dense 1/1.
        self.assertEqual(rows[1], "| B | 2 | 5.00 / — / — | 0.75 |")

    def test_per_task_rows_and_the_sum_over_common_operators(self):
        with tempfile.TemporaryDirectory() as d:
            weights = {"conv:a": 2, "dense:b": 1, "pool:c": 3}
            # A measured every operator; B (stopped part-way) has no records of pool:c and only
            # failures of dense:b, so the common operators are conv:a alone.
            a = write_run(d, "A", weights, {"conv:a": [4e-3, 1e-3], "dense:b": [3e-3],
                                            "pool:c": [5e-3]})
            b = write_run(d, "B", weights, {"conv:a": [2e-3, None, 0.5e-3], "dense:b": [None]})
            rows = self.run_table(a, b, at="1", extra=("--per-task",))
        header = next(i for i, row in enumerate(rows) if row.startswith("| operator |"))
        self.assertEqual(rows[header], "| operator | weight | A: best ms (measured) | "
                                       "B: best ms (measured) |")
        per_task = rows[header + 1:]
        self.assertEqual(per_task, [
            "| conv:a | 2 | 1.000 (2) | 0.500 (3) |",
            "| dense:b | 1 | 3.000 (1) | — |",
            "| pool:c | 3 | 5.000 (1) | — |",
            "| Σ over the 1 operators every run measured | | 2.00 | 1.00 |",
        ])

    def test_a_log_without_tasks_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "empty.log")
            open(log, "w").close()
            result = subprocess.run([sys.executable, SCRIPT, "--run", f"x={log},{log}"],
                                    capture_output=True, text=True)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("no 'task i/n", result.stderr)


if __name__ == "__main__":
    unittest.main()
