"""bench/gpu_baselines.py without PyTorch: op syntax and FLOPs against glimpse's, the plan it
prints, its exit status without torch, and its Markdown report on a synthetic result.

Run: python3 -m unittest discover -p test_gpu_baselines.py -s bench/tests -t bench/tests
(ctest: bench.gpu_baselines_py). Standard library only.
"""

import copy
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(BENCH)
SCRIPT = os.path.join(BENCH, "gpu_baselines.py")

sys.dont_write_bytecode = True  # no __pycache__ beside bench/gpu_baselines.py
spec = importlib.util.spec_from_file_location("gpu_baselines", SCRIPT)
gb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gb)


def run_script(*args, env=None):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          env=env, cwd=REPO, check=False)


class OpSyntaxAndFlopsTest(unittest.TestCase):
    def test_matches_glimpse_on_every_recorded_cpu_baseline_operator(self):
        # bench/results/cpu_baselines.json was written by glimpse's C++ codec: "op" is
        # OperatorToString(ParseOperator(line)) and "flops" is OperatorFlops, for the ResNet-18 list and
        # the small check shapes (depthwise, batched, dilation, ReLU, no bias).
        with open(os.path.join(BENCH, "results", "cpu_baselines.json"), encoding="utf-8") as f:
            recorded = json.load(f)
        entries = recorded["ops"] + recorded["check"]["small_shapes"]
        kinds = set()
        for entry in entries:
            op = gb.parse_op(entry["op"])
            kinds.add(op.kind)
            self.assertEqual(op.canonical(), entry["op"])
            self.assertEqual(op.flops(), entry["flops"], entry["op"])
        self.assertEqual(kinds, {"conv2d", "depthwise_conv2d", "dense", "batch_matmul"})
        self.assertGreaterEqual(len(entries), 20)

    def test_defaults_are_filled_and_shapes_follow_the_kernel_abi(self):
        op = gb.parse_op("conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3,bias=1")
        self.assertEqual(op.canonical(), "conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,"
                                         "pad=3,dilation=1,bias=1,relu=0")
        self.assertEqual(op.output_shape(), [1, 64, 112, 112])
        self.assertEqual(op.input_shapes(), [[1, 3, 224, 224], [64, 3, 7, 7], [64]])
        self.assertEqual(op.flops(), 2 * 64 * 112 * 112 * 3 * 7 * 7)
        dense = gb.parse_op("dense:M=1,N=1000,K=512")
        self.assertEqual(dense.input_shapes(), [[1, 512], [1000, 512]])
        self.assertEqual(dense.flops(), 2 * 1000 * 512)
        depthwise = gb.parse_op("depthwise_conv2d:N=1,C=8,H=9,W=9,R=3,S=3,stride=2,pad=1")
        self.assertEqual(depthwise.input_shapes(), [[1, 8, 9, 9], [8, 3, 3]])
        self.assertEqual(depthwise.output_shape(), [1, 8, 5, 5])

    def test_errors_name_the_field_and_what_is_accepted(self):
        cases = {
            "dense": "has no ':'",
            "gemm:M=1": "unknown operator 'gemm'; known: batch_matmul, conv2d, depthwise_conv2d, "
                        "dense",
            "dense:M=1,N=2,K=3,bais=1": "unknown field 'bais'; accepted: M, N, K, bias, relu",
            "dense:M=1,N=2": "missing field 'K'; required: M, N, K",
            "dense:M=1,N=x,K=3": "field 'N' has value 'x'; accepted: an integer",
            "dense:M=1,N=2,K=3,M=4": "field 'M' is given twice",
            "dense:M=1,N=2,K=3,bias=2": "field 'bias' is 2; accepted: 0 or 1",
            "conv2d:N=1,C=1,H=2,W=2,K=1,R=5,S=5": "exceed the padded input",
            "dense:M=1,,N=2,K=3": "'' is not field=value",
        }
        for text, message in cases.items():
            with self.subTest(text=text):
                with self.assertRaises(gb.UsageError) as caught:
                    gb.parse_op(text)
                self.assertIn(message, str(caught.exception))

    def test_every_operator_kind_has_an_fp32_and_a_tf32_variant(self):
        for kind, variants in gb.VARIANTS.items():
            tf32 = {v[3] for v in variants}
            self.assertEqual(tf32, {False, True}, kind)
            for key, *_ in variants:
                self.assertIn(key, dict(gb.COLUMNS))


class CommandLineTest(unittest.TestCase):
    def test_list_prints_resnet18_without_torch(self):
        result = run_script("--list")
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertIn("12 operator(s)", lines[0])
        self.assertIn("dense:M=1,N=1000,K=512,bias=1,relu=0  1.0 MFLOP", result.stdout)
        self.assertIn("236.0 MFLOP  [cudnn_fp32, cudnn_tf32]", result.stdout)

    def test_dry_run_states_settings_and_protocol(self):
        result = run_script("--dry-run", "--op", "dense:M=2,N=3,K=4", "--min-time-ms", "80")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("1 operator(s)", result.stdout)
        self.assertIn("allow_tf32 = False", result.stdout)
        self.assertIn("2 × L2 bytes", result.stdout)
        self.assertIn("80 ms of summed time", result.stdout)

    def test_a_bad_operator_file_names_the_line(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "bad_ops.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write("# comment\ndense:M=1,N=2,K=3\nconv2d:N=1\n")
            result = run_script("--list", "--ops", path)
        self.assertEqual(result.returncode, 2)
        self.assertIn("bad_ops.txt:3: conv2d: missing field 'C'", result.stderr)

    def test_without_torch_it_says_so_and_exits_2(self):
        # A module path entry that shadows torch (installed or not) with one that fails to import.
        with tempfile.TemporaryDirectory() as shadow:
            with open(os.path.join(shadow, "torch.py"), "w", encoding="utf-8") as f:
                f.write("raise ImportError('No module named torch (test stand-in)')\n")
            env = dict(os.environ, PYTHONPATH=shadow, PYTHONDONTWRITEBYTECODE="1")
            result = run_script("--op", "dense:M=1,N=2,K=3", env=env)
        self.assertEqual(result.returncode, 2)
        self.assertIn("PyTorch is not installed", result.stderr)


@unittest.skipUnless(importlib.util.find_spec("numpy"), "the PyTorch stand-in needs NumPy")
class MeasuringPathTest(unittest.TestCase):
    """The whole measuring path on bench/tests/fake_torch (NumPy on the CPU, host times)."""

    OPS = ["conv2d:N=1,C=3,H=9,W=11,K=4,R=3,S=3,stride=2,pad=1,dilation=1,bias=1,relu=1",
           "conv2d:N=2,C=5,H=7,W=7,K=3,R=3,S=3,pad=2,dilation=2",
           "depthwise_conv2d:N=1,C=6,H=8,W=8,R=3,S=3,pad=1,bias=1",
           "dense:M=3,N=7,K=20,bias=1", "batch_matmul:B=2,M=3,N=4,K=5,bias=1"]

    def run_with_fake_torch(self, folder, corrupt=""):
        peak = os.path.join(folder, "peak.json")
        with open(peak, "w", encoding="utf-8") as f:
            json.dump(synthetic_report()["peak"], f)
        env = dict(os.environ, PYTHONPATH=os.path.join(BENCH, "tests", "fake_torch"),
                   PYTHONDONTWRITEBYTECODE="1", FAKE_TORCH_CORRUPT=corrupt)
        args = ["--peak-json", peak, "--json", os.path.join(folder, "out.json"),
                "--markdown", os.path.join(folder, "out.md"), "--min-time-ms", "0",
                "--min-repeats", "4"]
        for op in self.OPS:
            args += ["--op", op]
        result = run_script(*args, env=env)
        with open(os.path.join(folder, "out.json"), encoding="utf-8") as f:
            report = json.load(f)
        with open(os.path.join(folder, "out.md"), encoding="utf-8") as f:
            text = f.read()
        return result, report, text

    def test_every_variant_is_checked_timed_and_reported(self):
        with tempfile.TemporaryDirectory() as folder:
            result, report, text = self.run_with_fake_torch(folder)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual([e["op"] for e in report["ops"]],
                         [gb.parse_op(op).canonical() for op in self.OPS])
        for entry in report["ops"]:
            self.assertEqual(entry["flops"], gb.parse_op(entry["op"]).flops())
            keys = [key for key, *_ in gb.VARIANTS[gb.parse_op(entry["op"]).kind]]
            self.assertEqual(sorted(entry["results"]), sorted(keys))
            for key, r in entry["results"].items():
                self.assertTrue(r["check"]["passed"], (entry["op"], key, r))
                self.assertEqual(len(r["samples_s"]), 4)
                self.assertEqual(r["switches"]["cudnn.allow_tf32"], r["tf32"])
                self.assertIn("profiler unavailable", r["kernels"][0])
        self.assertEqual(report["settings"]["flush_bytes"], 2 << 20)  # 2 × the 1 MiB L2
        self.assertEqual(report["peak"]["gflops_median"], 50000.0)
        self.assertIn("Fake GPU", text)
        self.assertIn("12 of 12 passed", text)  # 2 + 2 + 2 + 4 + 2 variants

    def test_a_wrong_result_fails_its_check_and_the_exit_status(self):
        with tempfile.TemporaryDirectory() as folder:
            result, report, text = self.run_with_fake_torch(folder, corrupt="conv2d")
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        conv = report["ops"][0]["results"]
        self.assertFalse(conv["cudnn_fp32"]["check"]["passed"])
        dense = report["ops"][3]["results"]
        self.assertTrue(all(r["check"]["passed"] for r in dense.values()))
        self.assertIn("FAILED: `conv2d:N=1,C=3", text)


def synthetic_report():
    """A report shaped as run() makes it, with made-up numbers (the Markdown is under test)."""
    conv = gb.parse_op("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,bias=1")
    dense = gb.parse_op("dense:M=1,N=1000,K=512,bias=1")

    def result(key, tf32, median_s, passed=True):
        return {"tf32": tf32, "library": "x", "call": "y", "median_s": median_s,
                "fastest_s": median_s, "samples_s": [median_s] * 3,
                "gflops": 0.0, "kernels": ["k1", "k2"],
                "check": {"passed": passed, "max_err_over_scale": 1e-7, "rtol": 1e-3}}

    ops = []
    for op, source in ((conv, "a:1"), (dense, "a:2")):
        entry = {"op": op.canonical(), "source": source, "flops": op.flops(), "results": {}}
        for key, _, _, tf32 in gb.VARIANTS[op.kind]:
            r = result(key, tf32, 1e-5 if tf32 else 2e-5)
            r["gflops"] = op.flops() / r["median_s"] / 1e9
            entry["results"][key] = r
        ops.append(entry)
    return {"command": "bench/gpu_baselines.py --json x", "started_utc": "2026-01-01T00:00:00Z",
            "wall_s": 12.0,
            "device": {"name": "Test GPU", "compute_capability": "9.0", "sm_count": 132,
                       "memory_bytes": 80 << 30, "l2_bytes": 50 << 20, "torch": "2.x",
                       "cuda": "13.0", "cudnn": 91000, "cublas": "bundled"},
            "settings": {"flush_bytes": 100 << 20, "sleep_cycles": gb.SLEEP_CYCLES},
            "peak": {"kernel": {"blocks": 1056, "block_threads": 256, "chains": 8, "unroll": 16,
                                "iterations": 100, "registers": 20},
                     "samples_s": [1e-3] * 25, "median_s": 1e-3, "gflops_median": 50000.0,
                     "gflops_fastest": 51000.0, "theoretical_gflops": 60000.0,
                     "check_passed": True},
            "ops": ops}


class JsonTest(unittest.TestCase):
    def test_samples_are_on_one_line_and_the_json_round_trips(self):
        report = synthetic_report()
        report["ops"][0]["results"]["cudnn_fp32"]["kernels"] = ["k<[1, 2]>"]
        text = gb.dump_json(report)
        self.assertEqual(json.loads(text), report)
        self.assertIn('"samples_s": [0.001, 0.001, 0.001', text)
        self.assertIn('"samples_s": [2e-05, 2e-05, 2e-05]', text)


class MarkdownTest(unittest.TestCase):
    def test_table_has_one_row_per_operator_and_fp32_share_of_peak(self):
        report = synthetic_report()
        text = gb.markdown(report, "the protocol")
        rows = [line for line in text.splitlines() if line.startswith("| 1 | `conv2d")]
        self.assertEqual(len(rows), 1)
        # 231.2 MFLOP in 20 µs = 11560.6 GFLOP/s FP32 = 23.1 % of the 50000 GFLOP/s peak; the
        # faster TF32 column does not count towards the share.
        self.assertIn("| 0.0200 | 11560.6 |", rows[0])
        self.assertTrue(rows[0].endswith("| 0.0200 | 0.0100 | 23.1 % |"), rows[0])
        # Best FP32 and TF32 times summed over both operators.
        self.assertIn("| 0.0400 | 0.0200 | |", text)
        self.assertIn("| 50000.0 | 51000.0 | 60000.0 |", text)
        self.assertIn("6 of 6 passed", text)
        self.assertIn("| 2 | cublas_matmul_fp32 | `k1`, `k2` |", text)
        self.assertNotIn("FAILED", text)
        self.assertTrue(gb.all_passed(report))

    def test_a_failed_check_is_marked_and_excluded_from_the_share(self):
        report = copy.deepcopy(synthetic_report())
        report["ops"][0]["results"]["cudnn_fp32"]["check"]["passed"] = False
        report["ops"][1]["results"]["cublas_linear_tf32"] = {"tf32": True, "error": "boom"}
        text = gb.markdown(report, "the protocol")
        row = next(line for line in text.splitlines() if line.startswith("| 1 | `conv2d"))
        self.assertIn("0.0200 (wrong)", row)
        self.assertTrue(row.endswith("| — | 0.0100 | — |"), row)
        self.assertIn("FAILED: `conv2d", text)
        self.assertIn("cublas_linear_tf32: boom", text)
        self.assertFalse(gb.all_passed(report))


if __name__ == "__main__":
    unittest.main()
