"""bench/cpu_remeasure_runs.py (several runs' fastest configurations re-measured side by side) on
synthetic databases and a fake bench_cpu_templates.

Run: python3 -m unittest discover -p test_cpu_remeasure_runs.py -s bench/tests -t bench/tests
Standard library only.
"""

import json
import os
import sqlite3
import stat
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(BENCH, "cpu_remeasure_runs.py")
sys.path.insert(0, BENCH)
from cpu_remeasure_runs import pass_order  # noqa: E402

OP_A = "conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,pad=1"
OP_B = "dense:M=1,N=16,K=16"

# The fake bench: each configuration's time on pass 0 and pass 1 (by the configuration's "x"),
# 'fail' for one that does not run. It counts its calls per operator in a file beside it.
FAKE_BENCH = r'''#!/usr/bin/env python3
import json, os, sys
TIMES = {TIMES}
args = sys.argv[1:]
op = None
configs = []
while args:
    flag, value, args = args[0], args[1], args[2:]
    if flag == "--op":
        op = value
    elif flag == "--config":
        configs.append((op, json.loads(value)))
counter = os.path.join(os.path.dirname(os.path.abspath(__file__)), "calls_" + op.split(":")[0])
call = int(open(counter).read()) if os.path.exists(counter) else 0
open(counter, "w").write(str(call + 1))
print("machine: fake")
for op, config in configs:
    t = TIMES[str(config["x"])][call]
    if t == "fail":
        print(f"| {op} | 1 given | 0/1 (1 runtime_error) | - | - | - | - | 0 s |")
    else:
        print(f"| {op} | 1 given | 1/1 | 1.0 | 1 % | 1.0 | {t:.4f} ms | 0 s |")
'''


def make_db(path, records):
    """records: [(operator name, status, time_s, x)]."""
    c = sqlite3.connect(path)
    c.execute("CREATE TABLE workloads (key TEXT PRIMARY KEY, name TEXT NOT NULL)")
    c.execute("CREATE TABLE records (id INTEGER PRIMARY KEY, workload_key TEXT NOT NULL, "
              "status TEXT NOT NULL, time_s REAL, config TEXT NOT NULL)")
    for name in {r[0] for r in records}:
        c.execute("INSERT INTO workloads VALUES (?, ?)", ("k:" + name, name))
    for name, status, time_s, x in records:
        c.execute("INSERT INTO records (workload_key, status, time_s, config) VALUES (?,?,?,?)",
                  ("k:" + name, status, time_s, json.dumps({"x": x})))
    c.commit()
    c.close()


class CpuRemeasureRunsTest(unittest.TestCase):
    def test_pass_orders_differ_and_cover_every_configuration(self):
        self.assertEqual(pass_order(3, 0), [0, 1, 2])
        self.assertEqual(pass_order(3, 1), [1, 2, 0])
        self.assertEqual(pass_order(3, 3), [2, 1, 0])  # the second cycle reversed
        self.assertEqual(sorted(pass_order(5, 3)), list(range(5)))
        self.assertEqual(pass_order(0, 1), [])
        # Two configurations take turns first.
        self.assertEqual([pass_order(2, i)[0] for i in range(4)], [0, 1, 1, 0])

    def test_runs_compared_on_their_own_top_configurations_at_the_fastest_pass(self):
        with tempfile.TemporaryDirectory() as d:
            # Run "long": x=1 (recorded 1.0 ms) and x=2; x=9 failed. Run "short": x=2 and x=3,
            # plus x=4 recorded slower than its top 2. On OP_B only "long" has records.
            long_db, short_db = os.path.join(d, "long.db"), os.path.join(d, "short.db")
            a_name = OP_A + ",stride=1,dilation=1,bias=0,relu=0"  # as a database names it
            make_db(long_db, [(a_name, "ok", 1.0e-3, 1), (a_name, "ok", 2.0e-3, 2),
                              (a_name, "runtime_error", None, 9), (OP_B, "ok", 1e-4, 5)])
            make_db(short_db, [(a_name, "ok", 2.1e-3, 2), (a_name, "ok", 1.5e-3, 3),
                               (a_name, "ok", 3.0e-3, 4)])
            tasks = os.path.join(d, "tasks.txt")
            with open(tasks, "w") as f:
                f.write(f"# header\n{OP_A}   # weight 2\n{OP_B}\n")
            # Re-measured times (ms) on pass 0 / pass 1: x=2 is the fastest of all at its
            # second pass; x=3 fails once.
            times = {"1": [1.2, 1.1], "2": [1.3, 0.9], "3": ["fail", 1.0], "5": [0.2, 0.1]}
            bench = os.path.join(d, "bench.py")
            with open(bench, "w") as f:
                f.write(FAKE_BENCH.replace("{TIMES}", json.dumps(times)))
            os.chmod(bench, os.stat(bench).st_mode | stat.S_IEXEC)
            out = os.path.join(d, "out.json")
            run = subprocess.run(
                [sys.executable, SCRIPT, "--run", f"long={long_db}", "--run", f"short={short_db}",
                 "--tasks", tasks, "--top", "2", "--passes", "2", "--bench", bench,
                 "--reference", "long", "--out", out],
                capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            result = json.load(open(out))
            a = result["operators"][OP_A]
            self.assertEqual(a["weight"], 2)
            # The union of the two tops: x=1, x=2 (both runs), x=3 — not x=9 (failed), not x=4.
            owners = {c["config"]["x"]: sorted(c["runs"]) for c in a["configs"]}
            self.assertEqual(owners, {1: ["long"], 2: ["long", "short"], 3: ["short"]})
            self.assertAlmostEqual(a["best_s"]["long"], 0.9e-3)
            self.assertAlmostEqual(a["best_s"]["short"], 0.9e-3)
            # OP_B: only one run has it, so the totals are over OP_A alone.
            self.assertEqual(result["total_over"], [OP_A])
            self.assertAlmostEqual(result["totals_s"]["long"], 1.8e-3)
            self.assertIn("| over long | | 1.00× | 1.00× |", run.stdout)
            self.assertIn(f"| {OP_B} | 1 | 0.100 | — |", run.stdout)

    def test_a_run_that_is_not_a_database_is_refused(self):
        run = subprocess.run([sys.executable, SCRIPT, "--run", "x=/nonexistent.db", "--tasks",
                              "t", "--out", "o"], capture_output=True, text=True)
        self.assertEqual(run.returncode, 2)
        self.assertIn("--run x=/nonexistent.db: expected NAME=DB", run.stderr)


if __name__ == "__main__":
    unittest.main()
