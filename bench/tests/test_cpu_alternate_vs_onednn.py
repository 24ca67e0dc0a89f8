"""bench/cpu_alternate_vs_onednn.py (picks beside oneDNN, layer by layer, in alternating processes)
on a synthetic database, a fake bench_cpu_templates and a fake cpu_baselines.

Run: python3 -m unittest discover -p test_cpu_alternate_vs_onednn.py -s bench/tests -t bench/tests
Standard library only.
"""

import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

from test_cpu_remeasure_runs import make_db

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(BENCH, "cpu_alternate_vs_onednn.py")
OP = "conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,pad=1"

# Both fakes append what they ran to a shared log; the bench's times come from TIMES by the
# configuration's "x" and the process's call number, the library's from LIBRARY.
FAKE_BENCH = r'''#!/usr/bin/env python3
import json, os, sys
TIMES = {TIMES}
here = os.path.dirname(os.path.abspath(__file__))
args, op, xs = sys.argv[1:], None, []
while args:
    flag, value, args = args[0], args[1], args[2:]
    if flag == "--op":
        op = value
    elif flag == "--config":
        xs.append(json.loads(value)["x"])
counter = os.path.join(here, "bench_calls")
call = int(open(counter).read()) if os.path.exists(counter) else 0
open(counter, "w").write(str(call + 1))
open(os.path.join(here, "log"), "a").write("bench " + " ".join(map(str, xs)) + "\n")
for x in xs:
    print(f"| {op} | 1 given | 1/1 | 1.0 | 1 % | 1.0 | {TIMES[str(x)][call]:.4f} ms | 0 s |")
'''

FAKE_BASELINES = r'''#!/usr/bin/env python3
import json, os, sys
LIBRARY = {LIBRARY}
here = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
op, out = args[args.index("--op") + 1], args[args.index("--json") + 1]
counter = os.path.join(here, "library_calls")
call = int(open(counter).read()) if os.path.exists(counter) else 0
open(counter, "w").write(str(call + 1))
open(os.path.join(here, "log"), "a").write("library\n")
json.dump({"ops": [{"op": op, "flops": 2.0e6, "results": {"onednn_blocked": {
    "median_s": LIBRARY[call], "implementation": "fake"}}}]}, open(out, "w"))
'''


def write_tool(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)


class CpuAlternateVsOnednnTest(unittest.TestCase):
    def run_script(self, d, runs, times, library, rounds):
        bench, baselines = os.path.join(d, "bench"), os.path.join(d, "baselines")
        write_tool(bench, FAKE_BENCH.replace("{TIMES}", repr(times)))
        write_tool(baselines, FAKE_BASELINES.replace("{LIBRARY}", repr(library)))
        tasks = os.path.join(d, "tasks.txt")
        with open(tasks, "w") as f:
            f.write(f"# a comment\n{OP}  # weight 2\n")
        out = os.path.join(d, "out.json")
        command = [sys.executable, SCRIPT, "--tasks", tasks, "--rounds", str(rounds), "--bench",
                   bench, "--baselines", baselines, "--out", out]
        for name, db in runs:
            command += ["--run", f"{name}={db}"]
        table = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        with open(os.path.join(d, "log")) as f:
            log = f.read().splitlines()
        with open(out) as f:
            return json.load(f), table, log

    def test_ratios_are_fastest_over_fastest_and_the_median_of_the_rounds(self):
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "a.db")
            make_db(db, [(OP + ",stride=1,dilation=1,bias=0,relu=0", "ok", 1.0e-3, 1)])
            # Rounds: glimpse 1, 2, 4 ms; oneDNN 2, 1, 2 ms.
            result, table, log = self.run_script(d, [("a", db)], {"1": [1.0, 2.0, 4.0]},
                                                 [2.0e-3, 1.0e-3, 2.0e-3], rounds=3)
            entry = result["operators"][0]
            self.assertEqual(entry["weight"], 2)
            self.assertAlmostEqual(entry["ratio_fastest"]["a"], 1.0)  # 1 ms over 1 ms
            self.assertAlmostEqual(entry["ratio_median"]["a"], 0.5)  # median of 2, 0.5, 0.5
            self.assertIn("1.00× / 0.50×", table)
            # The two processes take turns first.
            self.assertEqual(log, ["bench 1", "library", "library", "bench 1", "library",
                                   "bench 1"])

    def test_a_configuration_two_runs_picked_is_measured_once_and_orders_rotate(self):
        with tempfile.TemporaryDirectory() as d:
            name = OP + ",stride=1,dilation=1,bias=0,relu=0"
            first, second, third = (os.path.join(d, f"{n}.db") for n in "fst")
            make_db(first, [(name, "ok", 1.0e-3, 1)])
            make_db(second, [(name, "ok", 1.0e-3, 1)])  # the same pick as `first`
            make_db(third, [(name, "ok", 0.5e-3, 2)])
            times = {"1": [1.0, 1.5], "2": [3.0, 0.5]}
            result, _, log = self.run_script(
                d, [("f", first), ("s", second), ("t", third)], times, [1.0e-3, 1.0e-3],
                rounds=2)
            entry = result["operators"][0]
            self.assertEqual(entry["glimpse_s"]["f"], entry["glimpse_s"]["s"])
            self.assertEqual(entry["glimpse_s"]["f"], [1.0e-3, 1.5e-3])
            self.assertEqual(entry["glimpse_s"]["t"], [3.0e-3, 0.5e-3])
            benches = [line for line in log if line.startswith("bench")]
            self.assertEqual(benches, ["bench 1 2", "bench 2 1"])


if __name__ == "__main__":
    unittest.main()
