"""bench/cpu_remeasure_vs_baselines.py (re-measured runs beside oneDNN) on hand-made files.

Run: python3 -m unittest discover -p test_cpu_remeasure_vs_baselines.py -s bench/tests -t bench/tests
Standard library only.
"""

import gzip
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(BENCH, "cpu_remeasure_vs_baselines.py")
sys.path.insert(0, BENCH)
from cpu_remeasure_vs_baselines import as_baseline, compare  # noqa: E402

CONV = "conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,pad=1,bias=1,relu=1,residual=1"
DW = "depthwise_conv2d:N=1,C=8,H=8,W=8,R=3,S=3,pad=1,bias=1,relu6=1"
DENSE = "dense:M=1,N=16,K=16"

REMEASURE = {
    "runs": ["without", "with"],
    "operators": {
        CONV: {"best_s": {"without": 2.0, "with": 1.0}},
        DW: {"best_s": {"without": 4.0, "with": 8.0}},
        DENSE: {"best_s": {"without": 1.0, "with": 1.0}},
        "conv2d:N=1,C=4,H=4,W=4,K=4,R=1,S=1": {"best_s": {"without": 1.0, "with": 1.0}},
    },
}


def library(op, flops, seconds):
    return {"op": op, "flops": flops, "results": {"onednn_blocked": {"median_s": seconds}}}


BASELINES = {"ops": [
    # As cpu_baselines names them: every field, the residual dropped, ReLU6 run as ReLU.
    library("conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,stride=1,pad=1,dilation=1,bias=1,relu=1", 4e9, 1.0),
    library("depthwise_conv2d:N=1,C=8,H=8,W=8,R=3,S=3,stride=1,pad=1,dilation=1,bias=1,relu=1",
            1e9, 2.0),
    library("dense:M=1,N=16,K=16,bias=0,relu=0", 1e9, 0.5),
]}


class AsBaselineTest(unittest.TestCase):
    def test_drops_the_residual_and_runs_relu6_as_relu(self):
        self.assertEqual(
            as_baseline(DW),
            ("depthwise_conv2d:C=8,H=8,N=1,R=3,S=3,W=8,bias=1,dilation=1,pad=1,relu=1,stride=1",
             True))
        self.assertEqual(as_baseline(DENSE), ("dense:K=16,M=1,N=16,bias=0,relu=0", False))


class CompareTest(unittest.TestCase):
    def test_ratios_kinds_and_the_reference(self):
        rows, summaries = compare(REMEASURE, BASELINES, "without")
        # The 1×1 operator has no library row: left out; dense has one but is no convolution.
        self.assertEqual([r["op"] for r in rows], [CONV, DW, DENSE])
        self.assertTrue(rows[0]["fused"] and rows[1]["fused"] and not rows[2]["fused"])
        without, with_seeds = summaries["without"], summaries["with"]
        # without: conv 1/2, depthwise 2/4 → both 0.5; with: conv 1/1, depthwise 2/8.
        self.assertEqual(without["convolutions"], 2)
        self.assertAlmostEqual(without["geomean_vs_onednn"], 0.5)
        self.assertAlmostEqual(with_seeds["geomean_vs_onednn"], math.sqrt(0.25))
        self.assertAlmostEqual(with_seeds["by_kind"]["3x3"][0], 1.0)
        self.assertAlmostEqual(with_seeds["by_kind"]["depthwise"][0], 0.25)
        self.assertEqual(with_seeds["lowest"], (0.25, DW))
        # Against the reference: faster on the conv only; time ratios 0.5, 2, 1 → geo-mean 1.
        self.assertEqual(with_seeds["faster_than_reference"], 1)
        self.assertEqual(with_seeds["operators"], 3)
        self.assertAlmostEqual(with_seeds["time_geomean_vs_reference"], 1.0)
        self.assertNotIn("faster_than_reference", without)

    def test_command_line_reads_gzip_and_refuses_an_unknown_reference(self):
        with tempfile.TemporaryDirectory() as tmp:
            remeasure = os.path.join(tmp, "remeasure.json")
            baselines = os.path.join(tmp, "baselines.json.gz")
            with open(remeasure, "w") as handle:
                json.dump(REMEASURE, handle)
            with gzip.open(baselines, "wt") as handle:
                json.dump(BASELINES, handle)
            out = subprocess.run([sys.executable, SCRIPT, remeasure, baselines, "--reference",
                                  "without"], capture_output=True, text=True, check=True).stdout
            self.assertIn(f"| `{CONV}` † | 2.0 | 4.0 | 4.0 |", out)
            self.assertIn("faster than without on 1 of 3", out)
            bad = subprocess.run([sys.executable, SCRIPT, remeasure, baselines, "--reference",
                                  "nope"], capture_output=True, text=True)
            self.assertNotEqual(bad.returncode, 0)
            self.assertIn("its runs: without, with", bad.stderr)


if __name__ == "__main__":
    unittest.main()
