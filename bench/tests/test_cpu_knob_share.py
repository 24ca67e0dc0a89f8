"""bench/cpu_knob_share.py (a knob's share of a run's measurements, round by round) on a synthetic
database export.

Run: python3 -m unittest discover -p test_cpu_knob_share.py -s bench/tests -t bench/tests
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
SCRIPT = os.path.join(BENCH, "cpu_knob_share.py")
sys.path.insert(0, BENCH)
from cpu_knob_share import knob_share, read_records  # noqa: E402


def record(key, layout, started, time_s, status="ok"):
    return {"type": "record", "workload_key": key, "config": {"layout": layout, "tile": 4},
            "status": status, "time_s": time_s, "started_at": started}


class KnobShareTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        lines = [{"type": "workload", "key": "a"}]
        # Operator a: rounds of 2 in start order (written out of order): NCHW, NCHW | NCHWc, NCHWc;
        # the fastest that ran ok is NCHWc (the faster NCHW one failed).
        lines += [record("a", "NCHWc", 3, 2.0), record("a", "NCHW", 1, 5.0),
                  record("a", "NCHW", 2, 0.5, status="wrong"), record("a", "NCHWc", 4, 3.0)]
        # Operator b: NCHW, NCHWc | NCHW; NCHW is fastest.
        lines += [record("b", "NCHW", 1, 1.0), record("b", "NCHWc", 1, 4.0),
                  record("b", "NCHW", 2, 2.0)]
        # Operator c has no layout knob and is not counted.
        lines += [{"type": "record", "workload_key": "c", "config": {"tile": 2}, "status": "ok",
                   "time_s": 1.0, "started_at": 1}]
        self.path = os.path.join(self.dir.name, "run.jsonl.gz")
        with gzip.open(self.path, "wt") as out:
            for line in lines:
                out.write(json.dumps(line) + "\n")

    def tearDown(self):
        self.dir.cleanup()

    def test_counts_rounds_in_start_order_and_the_fastest_ok(self):
        rounds, winners, operators = knob_share(read_records(self.path), "layout", 2)
        self.assertEqual(operators, 2)
        self.assertEqual(dict(rounds[0]), {"NCHW": 3, "NCHWc": 1})
        self.assertEqual(dict(rounds[1]), {"NCHWc": 2, "NCHW": 1})
        self.assertEqual(dict(winners), {"NCHWc": 1, "NCHW": 1})

    def test_table_shows_shares_per_round(self):
        out = subprocess.run([sys.executable, SCRIPT, "--round", "2", f"r={self.path}"],
                             capture_output=True, text=True, check=True).stdout
        self.assertIn("| r | 2 | NCHW 75% / 33%; NCHWc 25% / 67% | NCHW 1, NCHWc 1 |", out)

    def test_refuses_a_run_without_a_name(self):
        done = subprocess.run([sys.executable, SCRIPT, self.path], capture_output=True, text=True)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("NAME=EXPORT", done.stderr)


if __name__ == "__main__":
    unittest.main()
