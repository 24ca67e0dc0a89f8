"""bench/cpu_resnet18_report.py (a model's CPU table) on a synthetic database, baselines file and
tasks file: FLOP counts, the baseline a fused operator is compared with, the geometric means,
the summed latency and the dense layers' bandwidth.

Run: python3 -m unittest discover -p test_cpu_model_report.py -s bench/tests -t bench/tests
Standard library only.
"""

import importlib.util
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(BENCH, "cpu_resnet18_report.py")

sys.dont_write_bytecode = True
spec = importlib.util.spec_from_file_location("cpu_resnet18_report", SCRIPT)
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)

CONV = "conv2d:N=1,C=8,H=10,W=10,K=16,R=3,S=3,pad=1,bias=1,relu6=1"
DEPTHWISE = "depthwise_conv2d:N=1,C=8,H=10,W=10,R=3,S=3,stride=2,pad=1,bias=1,residual=1"
DENSE = "dense:M=1,N=100,K=50,bias=1"


class PureFunctionsTest(unittest.TestCase):
    def test_flops(self):
        # 2 × K × OH × OW × C × R × S with the padded output size.
        self.assertEqual(report.op_flops(CONV), 2.0 * 16 * 10 * 10 * 8 * 9)
        # Depthwise: one channel per output channel; stride 2 and pad 1 → 5 × 5 outputs.
        self.assertEqual(report.op_flops(DEPTHWISE), 2.0 * 8 * 5 * 5 * 9)
        self.assertEqual(report.op_flops(DENSE), 2.0 * 100 * 50)

    def test_baseline_key(self):
        # ReLU6 runs as ReLU, the residual add is dropped; spellings compare equal.
        self.assertEqual(report.baseline_key(CONV), report.canonical(
            "conv2d:N=1,C=8,H=10,W=10,K=16,R=3,S=3,stride=1,pad=1,dilation=1,bias=1,relu=1"))
        self.assertEqual(report.baseline_key(DEPTHWISE), report.canonical(
            DEPTHWISE.replace(",residual=1", "")))
        self.assertEqual(report.baseline_key(DENSE), report.canonical(DENSE))


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        self.db = os.path.join(d, "tune.db")
        connection = sqlite3.connect(self.db)
        connection.execute("CREATE TABLE workloads (key TEXT, name TEXT)")
        connection.execute(
            "CREATE TABLE records (id INTEGER PRIMARY KEY, workload_key TEXT, status TEXT, "
            "time_s REAL)")
        # glimpse's spelling: every field. Times: CONV's best 2e-4 s, DEPTHWISE's 1e-5 s after a
        # failure, DENSE's 1e-5 s.
        times = {CONV + ",stride=1,dilation=1": ["ok", 4e-4, "ok", 2e-4],
                 DEPTHWISE: ["runtime", None, "ok", 1e-5],
                 DENSE: ["ok", 1e-5]}
        for index, (name, rows) in enumerate(times.items()):
            connection.execute("INSERT INTO workloads VALUES (?, ?)", (str(index), name))
            for status, time_s in zip(rows[::2], rows[1::2]):
                connection.execute(
                    "INSERT INTO records (workload_key, status, time_s) VALUES (?, ?, ?)",
                    (str(index), status, time_s))
        connection.commit()
        connection.close()

        def lib(seconds, op):
            return {"median_s": seconds, "gflops": report.op_flops(op) / seconds / 1e9,
                    "passed": True}

        # oneDNN ran the convolutions in half glimpse's time (its nearest epilogues).
        conv_base = CONV.replace("relu6=1", "relu=1")
        dw_base = DEPTHWISE.replace(",residual=1", "")
        self.baselines = os.path.join(d, "baselines.json")
        with open(self.baselines, "w") as f:
            json.dump({"peak": [{"threads": 2, "gflops": 200.0}],
                       "ops": [{"op": conv_base, "results": {"onednn_blocked": lib(1e-4, CONV)}},
                               {"op": dw_base, "results": {"onednn_blocked": lib(5e-6, DEPTHWISE)}},
                               {"op": DENSE, "results": {"onednn_plain": lib(2.4e-5, DENSE)}}]}, f)
        self.tasks = os.path.join(d, "tasks.txt")
        with open(self.tasks, "w") as f:
            f.write("# a model\n")
            f.write(f"{CONV}   # weight 2\n{DEPTHWISE} # weight 1\n{DENSE} # weight 1\n")

    def tearDown(self):
        self.dir.cleanup()

    def run_report(self):
        return subprocess.run(
            [sys.executable, SCRIPT, "--db", self.db, "--baselines", self.baselines, "--tasks",
             self.tasks, "--checkpoints", "1,2"], check=True, capture_output=True,
            text=True).stdout

    def test_table_and_summary(self):
        out = self.run_report()
        # The fused rows are marked; glimpse's best after 1 and 2 measurements.
        conv_row = next(line for line in out.splitlines() if line.startswith(f"| `{CONV}` †"))
        flops = report.op_flops(CONV)
        self.assertIn(f"| {flops / 4e-4 / 1e9:.1f} | {flops / 2e-4 / 1e9:.1f} |", conv_row)
        dw_row = next(line for line in out.splitlines() if line.startswith(f"| `{DEPTHWISE}` †"))
        self.assertIn("| — |", dw_row)  # after one measurement: only a failure
        # Both convolutions at 0.5× oneDNN: geo-mean and lowest 0.50, one per kind.
        self.assertIn("geometric mean over 2 convolutions: **0.50×**", out)
        self.assertIn("lowest 0.50×", out)
        self.assertIn("3×3 0.50× over 1", out)
        self.assertIn("depthwise 0.50× over 1", out)
        # The dense layer: 100 × 50 floats = 0.02 MB in 1e-5 s = 2.0 GB/s; 2.4× oneDNN's speed.
        self.assertIn("streams its 0.0 MB of weights at 2.0 GB/s; glimpse / best oneDNN 2.40×", out)
        # No summed latency: oneDNN's blocked primitive has no time for the dense layer.
        self.assertNotIn("Σ weight × time", out)

    def test_summed_latency_needs_every_weight_and_baseline(self):
        with open(self.baselines) as f:
            doc = json.load(f)
        doc["ops"][2]["results"]["onednn_blocked"] = doc["ops"][2]["results"]["onednn_plain"]
        with open(self.baselines, "w") as f:
            json.dump(doc, f)
        out = self.run_report()
        # glimpse: 2 × 0.2 + 0.01 + 0.01 = 0.42 ms; oneDNN: 2 × 0.1 + 0.005 + 0.024 = 0.229 ms.
        self.assertIn("glimpse 0.42 ms, oneDNN blocked 0.23 ms (0.55×)", out)
        with open(self.tasks, "w") as f:
            f.write(f"{CONV}   # weight 2\n{DEPTHWISE}\n{DENSE} # weight 1\n")
        self.assertNotIn("Σ weight × time", self.run_report())


if __name__ == "__main__":
    unittest.main()
