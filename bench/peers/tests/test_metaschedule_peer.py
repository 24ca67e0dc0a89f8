"""The MetaSchedule peer's parts that need no TVM: op syntax, curves, records and the JSON file.

The expectations are written out by hand from glimpse's definitions (include/glimpse/cpu.h,
docs/cpu-tuning.md), not recomputed with the functions under test.
"""

import itertools
import json
import os
import tempfile
import unittest

import metaschedule_peer as peer

try:
    import numpy
except ImportError:  # the reference tests need numpy; everything else is standard library
    numpy = None

RESNET_TASKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                            "configs", "resnet18_cpu_tasks.txt")
FAILED = [1e10]  # how MetaSchedule's database records a candidate that did not build or run


class ParseOpTest(unittest.TestCase):
    def test_conv2d_defaults_and_canonical_text(self):
        op = peer.parse_op("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,bias=1")
        self.assertEqual(op, {"op": "conv2d", "N": 1, "C": 64, "H": 56, "W": 56, "K": 64,
                              "R": 3, "S": 3, "stride": 1, "pad": 0, "dilation": 1, "bias": 1,
                              "relu": 0})
        self.assertEqual(peer.op_to_string(op), "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,"
                                                "stride=1,pad=0,dilation=1,bias=1,relu=0")
        self.assertEqual(peer.parse_op(peer.op_to_string(op)), op)

    def test_field_order_does_not_matter(self):
        self.assertEqual(peer.parse_op("dense:K=512,bias=1,N=1000,M=1"),
                         peer.parse_op("dense:M=1,N=1000,K=512,bias=1"))

    def test_shapes_and_flops(self):
        conv = peer.parse_op("conv2d:N=1,C=64,H=56,W=56,K=128,R=3,S=3,stride=2,pad=1,bias=1")
        self.assertEqual(peer.op_output_shape(conv), [1, 128, 28, 28])
        self.assertEqual(peer.op_input_shapes(conv), [[1, 64, 56, 56], [128, 64, 3, 3], [128]])
        # 2 * outputs * C*R*S; the bias add is not counted.
        self.assertEqual(peer.op_flops(conv), 2 * 128 * 28 * 28 * 64 * 9)
        first = peer.parse_op("conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3")
        self.assertEqual(peer.op_output_shape(first), [1, 64, 112, 112])
        self.assertEqual(peer.op_input_shapes(first), [[1, 3, 224, 224], [64, 3, 7, 7]])
        dilated = peer.parse_op("conv2d:N=1,C=8,H=10,W=10,K=16,R=3,S=3,pad=2,dilation=2")
        self.assertEqual(peer.op_output_shape(dilated), [1, 16, 10, 10])
        dense = peer.parse_op("dense:M=1,N=1000,K=512,bias=1")
        self.assertEqual(peer.op_output_shape(dense), [1, 1000])
        self.assertEqual(peer.op_input_shapes(dense), [[1, 512], [1000, 512], [1000]])
        self.assertEqual(peer.op_flops(dense), 2 * 1000 * 512)

    def test_errors_name_the_field_and_what_is_accepted(self):
        cases = {
            "conv2d N=1": "has no ':'",
            "conv3d:N=1": "unknown operator 'conv3d'; known: conv2d, dense",
            "depthwise_conv2d:N=1,C=8,H=8,W=8,R=3,S=3": "supported: conv2d, dense",
            "dense:M=1,N=2": "missing field 'K'; required: M, N, K",
            "dense:M=1,N=2,K=3,bias=2": "field 'bias' is 2; accepted: 0 or 1",
            "dense:M=1,N=2,K=3,k=3": "unknown field 'k'; accepted: M, N, K, bias, relu",
            "dense:M=1,N=2,K=x": "field 'K' has value 'x'; accepted: an integer",
            "dense:M=1,N=2,K=3,M=4": "field 'M' is given twice",
            "dense:M=1,N=2,K": "'K' is not field=value",
            "dense:M=0,N=2,K=3": "field 'M' is 0; accepted: an integer in [1, 1048576]",
            "conv2d:N=1,C=1,H=2,W=2,K=1,R=5,S=5": "exceed the padded input",
        }
        for text, expected in cases.items():
            with self.subTest(text=text):
                with self.assertRaises(peer.OpError) as caught:
                    peer.parse_op(text)
                self.assertIn(expected, str(caught.exception))

    def test_slug_is_a_plain_file_name(self):
        slug = peer.op_slug(peer.parse_op("dense:M=1,N=1000,K=512,bias=1"))
        self.assertEqual(slug, "dense_M1_N1000_K512_bias1_relu0")


class OpsFileTest(unittest.TestCase):
    def write(self, text):
        handle = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
        handle.write(text)
        handle.close()
        self.addCleanup(os.unlink, handle.name)
        return handle.name

    def test_resnet18_task_list(self):
        ops = peer.collect_ops([RESNET_TASKS], [])
        self.assertEqual(len(ops), 12)
        self.assertEqual(sum(op["op"] == "conv2d" for op in ops), 11)
        self.assertEqual(peer.op_to_string(ops[-1]), "dense:M=1,N=1000,K=512,bias=1,relu=0")
        self.assertTrue(all(op["bias"] == 1 for op in ops))

    def test_comments_blank_lines_and_duplicates(self):
        path = self.write("# header\n\ndense:M=1,N=8,K=4  # trailing comment\n"
                          "dense:K=4,N=8,M=1\n")
        ops = peer.collect_ops([path], ["dense:M=2,N=8,K=4"])
        self.assertEqual([peer.op_to_string(op) for op in ops],
                         ["dense:M=1,N=8,K=4,bias=0,relu=0", "dense:M=2,N=8,K=4,bias=0,relu=0"])

    def test_bad_line_names_file_and_line(self):
        path = self.write("dense:M=1,N=8,K=4\n# fine\ndense:M=1,N=8\n")
        with self.assertRaises(peer.OpError) as caught:
            peer.read_ops_file(path)
        self.assertIn(f"{path}:3: dense: missing field 'K'", str(caught.exception))

    def test_no_operator_and_missing_file(self):
        with self.assertRaises(peer.OpError) as caught:
            peer.collect_ops([], [])
        self.assertIn("no operator given", str(caught.exception))
        with self.assertRaises(peer.OpError) as caught:
            peer.collect_ops(["/nonexistent/ops.txt"], [])
        self.assertIn("--ops /nonexistent/ops.txt: cannot read", str(caught.exception))


class CurveTest(unittest.TestCase):
    def test_measurement_is_the_median_and_failures_are_none(self):
        self.assertEqual(peer.measurement_s([3.0, 1.0, 2.0]), 2.0)
        self.assertEqual(peer.measurement_s([4.0, 1.0, 2.0, 3.0]), 2.5)
        self.assertIsNone(peer.measurement_s(FAILED))
        self.assertIsNone(peer.measurement_s([]))
        self.assertIsNone(peer.measurement_s([1e-3, float("nan")]))

    def test_best_so_far_after_each_measurement(self):
        flops = 2e9  # 2 GFLOP: 1 s is 2 GFLOP/s
        runs = [FAILED, [4.0, 4.0, 4.0], [8.0], FAILED, [1.0, 0.5, 2.0], [2.0]]
        self.assertEqual(peer.best_curve(runs, flops), [0.0, 0.5, 0.5, 0.5, 2.0, 2.0])
        self.assertEqual(peer.best_curve([], flops), [])
        self.assertEqual(peer.best_curve([FAILED, FAILED], flops), [0.0, 0.0])

    def test_best_by_median_and_metaschedule_pick_by_mean(self):
        # Measurement 1: median 1.0, mean 3.0 (one slow sample); measurement 2: 1.5 and 1.5.
        runs = [FAILED, [1.0, 1.0, 7.0], [1.5, 1.5, 1.5]]
        self.assertEqual(peer.best_measurement(runs), (1, 1.0))
        self.assertEqual(peer.metaschedule_pick(runs), 2)
        self.assertIsNone(peer.best_measurement([FAILED]))
        self.assertIsNone(peer.metaschedule_pick([FAILED]))
        self.assertEqual(peer.best_measurement([[2.0], [1.0], [1.0]]), (1, 1.0))


class PhasesTest(unittest.TestCase):
    def test_nested_scopes_count_once(self):
        profile = {"Total": 100.0, "SendToBuilder": 50.0, "SendToRunner": 9.0,
                   "JoinRunnerFutures": 1.0, "EvoSearch/SampleInitPopulation": 4.0,
                   "EvoSearch/Evolve/Mutation": 10.0, "EvoSearch/Evolve/Misc": 2.0,
                   "EvoSearch/Evolve/Misc/CopyMeasuredWorkloads": 1.5,
                   "MeasureCallback/UpdateCostModel": 6.0}
        phases = peer.phases_from_profiler(profile, 90.0)
        self.assertEqual(phases, {"builder_s": 50.0, "runner_s": 10.0, "search_s": 16.0,
                                  "cost_model_update_s": 6.0, "other_s": 8.0})


class DatabaseTest(unittest.TestCase):
    def test_records_are_read_in_commit_order(self):
        lines = [[0, [[["trace"]], [1e10], {"kind": "llvm"}, []]],
                 [0, [[["trace"]], [0.002, 0.003], {"kind": "llvm"}, []]],
                 [0, [[["trace"]], [0.001], {"kind": "llvm"}, []]]]
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "database_tuning_record.json")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write("".join(json.dumps(line) + "\n" for line in lines) + "\n")
            workloads, runs = peer.read_tuning_records(path)
            self.assertEqual(workloads, [0, 0, 0])
            self.assertEqual(runs, [[1e10], [0.002, 0.003], [0.001]])
            with open(path, "a", encoding="utf-8") as handle:
                handle.write('{"not": "a record"}\n')
            with self.assertRaises(ValueError) as caught:
                peer.read_tuning_records(path)
            self.assertIn(f"{path}:5: not a MetaSchedule tuning record", str(caught.exception))


class DocumentTest(unittest.TestCase):
    OP = peer.parse_op("dense:M=1,N=1000,K=512,bias=1")  # 1.024e6 FLOP

    def record(self):
        runs = [FAILED, [0.002, 0.002], [0.001, 0.001, 0.004], [0.0015]]
        return peer.op_record(self.OP, runs, wall_s=12.5,
                              phases_s={"builder_s": 8.0, "runner_s": 1.0},
                              batches=[{"elapsed_s": 12.0, "size": 4,
                                        "errors": ["build: timeout", None, None, None]}],
                              remeasured={"time_s": 0.0011, "check": {"passed": True}},
                              work_dir="build/metaschedule/x/dense")

    def test_op_record(self):
        record = self.record()
        self.assertEqual(record["op"], "dense:M=1,N=1000,K=512,bias=1,relu=0")
        self.assertEqual((record["measurements"], record["failed"]), (4, 1))
        self.assertEqual(record["flops"], 1.024e6)
        self.assertEqual(len(record["best_gflops_after"]), 4)
        self.assertAlmostEqual(record["best_gflops_after"][1], 0.512)
        self.assertAlmostEqual(record["best_gflops_after"][3], 1.024)
        # Best by median: measurement 3 (1 ms); MetaSchedule's pick by mean: measurement 4.
        self.assertEqual(record["best"]["measurement"], 3)
        self.assertAlmostEqual(record["best"]["gflops"], 1.024)
        self.assertEqual(record["metaschedule_pick"]["measurement"], 4)
        self.assertEqual(record["run_secs"][0], FAILED)
        self.assertEqual(record["tuning_wall_s"], 12.5)

    def test_document_round_trips_and_is_rewritten_whole(self):
        settings = {"trials": 4, "runner": {"evaluator": {"number": 1, "repeat": 10}}}
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "results", "ms.json")
            records = [self.record()]
            peer.write_atomically(path, peer.make_document(
                "2026-01-01T00:00:00Z", "cmd", {"cpu": "x", "cores": 2}, {"tvm": "0.27"},
                settings, records))
            records.append({"op": "dense:M=2,N=8,K=4,bias=0,relu=0", "error": "boom"})
            peer.write_atomically(path, peer.make_document(
                "2026-01-01T00:00:00Z", "cmd", {"cpu": "x", "cores": 2}, {"tvm": "0.27"},
                settings, records))
            self.assertEqual(os.listdir(os.path.dirname(path)), ["ms.json"])
            with open(path, encoding="utf-8") as handle:
                document = json.load(handle)
            self.assertEqual(document["format"], peer.FORMAT)
            self.assertEqual(document["tool"], "metaschedule")
            self.assertEqual(set(document), {"format", "version", "tool", "created", "command",
                                             "machine", "software", "settings", "startup_s",
                                             "ops"})
            self.assertEqual(len(document["ops"]), 2)
            self.assertEqual(document["ops"][0]["run_secs"][1], [0.002, 0.002])

            # --resume keeps finished operators, not failed ones, and only under equal settings.
            kept = peer.reusable_ops(path, settings)
            self.assertEqual(list(kept), ["dense:M=1,N=1000,K=512,bias=1,relu=0"])
            other = dict(settings, trials=8)
            with self.assertRaises(peer.OpError) as caught:
                peer.reusable_ops(path, other)
            self.assertIn("other settings (trials)", str(caught.exception))
            self.assertEqual(peer.reusable_ops(os.path.join(directory, "none.json"), settings),
                             {})


class WorkDirTest(unittest.TestCase):
    def test_metaschedule_files_are_cleared_others_refused(self):
        with tempfile.TemporaryDirectory() as root:
            work = os.path.join(root, "op")
            os.makedirs(os.path.join(work, "logs"))
            open(os.path.join(work, "database_tuning_record.json"), "w").close()
            peer.prepare_work_dir(work)
            self.assertEqual(os.listdir(work), [])
            open(os.path.join(work, "notes.txt"), "w").close()
            with self.assertRaises(peer.OpError) as caught:
                peer.prepare_work_dir(work)
            self.assertIn("did not write (notes.txt)", str(caught.exception))
            self.assertEqual(os.listdir(work), ["notes.txt"])
            fresh = os.path.join(root, "a", "b")
            peer.prepare_work_dir(fresh)
            self.assertTrue(os.path.isdir(fresh))


class FlagsTest(unittest.TestCase):
    def test_bad_flags_name_the_flag(self):
        cases = {("--trials", "0"): "--trials is 0; accepted: an integer >= 1",
                 ("--repeat", "0"): "--repeat is 0",
                 ("--min-repeat-ms", "-1"): "--min-repeat-ms is -1",
                 ("--cores", "0"): "--cores is 0",
                 ("--builder-timeout", "0"): "--builder-timeout must be > 0"}
        for flag, expected in cases.items():
            with self.subTest(flag=flag):
                args = peer.build_parser().parse_args(["--out", "x.json", "--op", "dense:M=1,"
                                                       "N=2,K=3", *flag])
                with self.assertRaises(peer.OpError) as caught:
                    peer.check_flags(args)
                self.assertIn(expected, str(caught.exception))

    def test_settings_record_the_protocol(self):
        args = peer.build_parser().parse_args(["--out", "x.json", "--op", "dense:M=1,N=2,K=3"])
        peer.check_flags(args)
        settings = peer.make_settings(args, 2, "znver4")
        self.assertEqual(settings["target"], {"kind": "llvm", "mcpu": "znver4", "num-cores": 2})
        self.assertEqual(settings["target_text"], "llvm -mcpu=znver4 -num-cores 2")
        self.assertEqual(settings["runner"]["evaluator"],
                         {"number": 1, "repeat": 10, "min_repeat_ms": 0,
                          "enable_cpu_cache_flush": True})
        self.assertEqual((settings["trials"], settings["trials_per_iter"]), (64, 64))
        self.assertEqual(settings["builder"]["timeout_s"], 60.0)


@unittest.skipIf(numpy is None, "numpy is not installed")
class ReferenceTest(unittest.TestCase):
    """The float64 reference against a direct loop over glimpse's definition, and the check."""

    @staticmethod
    def direct(op, inputs):
        if op["op"] == "dense":
            out = numpy.zeros((op["M"], op["N"]))
            for i, j, k in itertools.product(range(op["M"]), range(op["N"]), range(op["K"])):
                out[i, j] += inputs[0][i, k] * inputs[1][j, k]
            if op["bias"]:
                out += inputs[2][None, :]
        else:
            out = numpy.zeros(peer.op_output_shape(op))
            for n, k, y, x in numpy.ndindex(*out.shape):
                for c, r, s in itertools.product(range(op["C"]), range(op["R"]), range(op["S"])):
                    iy = y * op["stride"] + r * op["dilation"] - op["pad"]
                    ix = x * op["stride"] + s * op["dilation"] - op["pad"]
                    if 0 <= iy < op["H"] and 0 <= ix < op["W"]:
                        out[n, k, y, x] += inputs[0][n, c, iy, ix] * inputs[1][k, c, r, s]
                if op["bias"]:
                    out[n, k, y, x] += inputs[2][k]
        return numpy.maximum(out, 0.0) if op["relu"] else out

    def test_reference_matches_the_definition(self):
        for text in ["conv2d:N=2,C=3,H=11,W=13,K=5,R=3,S=3,stride=2,pad=1,bias=1",
                     "conv2d:N=1,C=4,H=10,W=9,K=6,R=3,S=2,pad=2,dilation=2,bias=1,relu=1",
                     "conv2d:N=1,C=2,H=15,W=15,K=3,R=7,S=7,stride=2,pad=3",
                     "dense:M=5,N=33,K=70,bias=1,relu=1"]:
            with self.subTest(op=text):
                op = peer.parse_op(text)
                rng = numpy.random.default_rng(3)
                inputs = [rng.uniform(-1, 1, size=shape) for shape in peer.op_input_shapes(op)]
                out, magnitude = peer.reference(op, inputs)
                self.assertEqual(list(out.shape), peer.op_output_shape(op))
                numpy.testing.assert_allclose(out, self.direct(op, inputs), atol=1e-12)
                self.assertTrue((magnitude >= numpy.abs(out) - 1e-12).all())

    def test_check_passes_float32_rounding_and_catches_a_missing_term(self):
        op = peer.parse_op("conv2d:N=1,C=8,H=6,W=6,K=4,R=3,S=3,pad=1,bias=1")
        rng = numpy.random.default_rng(5)
        inputs = [rng.uniform(-1, 1, size=shape) for shape in peer.op_input_shapes(op)]
        out, magnitude = peer.reference(op, inputs)
        check = peer.check_output(op, out.astype(numpy.float32), out, magnitude)
        self.assertTrue(check["passed"])
        self.assertLess(check["worst_ratio"], 0.01)
        wrong = out.copy()
        wrong[0, 1, 2, 3] -= inputs[0][0, 4, 2, 3] * inputs[1][1, 4, 1, 1]  # one tap left out
        check = peer.check_output(op, wrong.astype(numpy.float32), out, magnitude)
        self.assertFalse(check["passed"])
        self.assertEqual(check["failed_elements"], 1)
        nan = out.astype(numpy.float32)
        nan[0, 0, 0, 0] = numpy.nan
        self.assertFalse(peer.check_output(op, nan, out, magnitude)["passed"])


if __name__ == "__main__":
    unittest.main()
