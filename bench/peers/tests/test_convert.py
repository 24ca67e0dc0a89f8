"""The Kernel Tuner peer's converter on a small recorded Kernel Tuner output.

The fixture (tests/data, see its README.md) is a 150-configuration cut of pnpoly/RTX_3090 and raw
runs the peer wrote for it with Kernel Tuner 1.5.0; the expectations are recomputed here from the
fixture's own rows and from the recorded cache, independently of convert.py's loop.
"""

import gzip
import json
import math
import os
import tempfile
import unittest

import convert

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
CACHE = os.path.join(DATA, "pnpoly_small", "RTX_3090.json.gz")
RESTRICTIONS = ["block_size_x * tile_size < 5000 or use_method != 0"]
RAW_GA = os.path.join(DATA, "raw", "pnpoly_small__RTX_3090__genetic_algorithm__0.json")
RAW_ILS = os.path.join(DATA, "raw", "pnpoly_small__RTX_3090__greedy_ils__0.json")


def distinct_in_order(rows):
    """First evaluation of each configuration, in Kernel Tuner's order."""
    seen, firsts = set(), []
    for row in rows:
        if row[0] not in seen:
            seen.add(row[0])
            firsts.append(row)
    return firsts


class FixtureTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cache = convert.load_cache(CACHE)
        cls.space = convert.describe_space("pnpoly_small", CACHE, cls.cache, RESTRICTIONS)
        cls.optimum_s = cls.space["info"]["optimum_s"]
        cls.ga = convert.load_raw_run(RAW_GA)
        cls.ils = convert.load_raw_run(RAW_ILS)

    def test_fixture_is_what_the_tests_need(self):
        rows = self.ga["evaluations"]
        self.assertGreater(len(rows), len(distinct_in_order(rows)), "no repeated configuration")
        self.assertTrue(any(convert.is_failure(row[1]) for row in rows), "no failure")
        self.assertEqual(self.ga["kernel_tuner_version"], "1.5.0")

    def test_space_id_and_info(self):
        info = self.space["info"]
        self.assertEqual(info["id"], "pnpoly_small/RTX_3090")
        self.assertEqual(convert.space_id("convolution_milo", "/x/A100.json.gz"),
                         "convolution_milo/A100")
        self.assertEqual(convert.space_id("gemm", "RTX_3090.json"), "gemm/RTX_3090")
        self.assertEqual(info["device"], "NVIDIA GeForce RTX 3090")
        # 150 configurations; with use_method 0, block_size_x * tile_size >= 5000 removes
        # (256, 20) and tile sizes 12, 16, 20 of 544, 800, 992: 10 (size, tile) pairs x 2.
        self.assertEqual(info["valid"], 130)
        self.assertEqual(self.space["missing"], [])

    def test_optimum_respects_restrictions(self):
        entries = self.cache["cache"].values()
        ok = [e for e in entries if not convert.is_failure(e["time"])]
        fastest_anywhere = min(e["time"] for e in ok)
        allowed = [e["time"] for e in ok
                   if e["block_size_x"] * e["tile_size"] < 5000 or e["use_method"] != 0]
        self.assertAlmostEqual(self.optimum_s, min(allowed) * 1e-3, places=15)
        # The file's fastest entry, (0, 256, 20, 0), breaks the restriction.
        self.assertGreater(self.optimum_s, fastest_anywhere * 1e-3)
        self.assertEqual(self.space["info"]["recorded_ok"], len(allowed))

    def test_counts_distinct_configurations_failures_included(self):
        run = convert.convert_run(self.ga, self.optimum_s, 40, 16)
        firsts = distinct_in_order(self.ga["evaluations"])
        self.assertEqual(run["measurements"], len(firsts))
        self.assertLessEqual(run["measurements"], 40)
        self.assertEqual(run["failed"], sum(convert.is_failure(r[1]) for r in firsts))
        self.assertGreater(run["failed"], 0)
        self.assertEqual(run["space"], "pnpoly_small/RTX_3090")
        self.assertEqual((run["tool"], run["strategy"], run["seed"]),
                         ("kernel_tuner", "genetic_algorithm", 0))

    def test_repeated_configuration_counts_once(self):
        rows = self.ga["evaluations"][:5]
        doubled = dict(self.ga, evaluations=[row for row in rows for _ in range(2)])
        run = convert.convert_run(doubled, self.optimum_s, 40, 16)
        self.assertEqual(run["measurements"], len(distinct_in_order(rows)))

    def test_budget_truncates_to_first_distinct_configurations(self):
        run = convert.convert_run(self.ga, self.optimum_s, 7, 16)
        firsts = distinct_in_order(self.ga["evaluations"])[:7]
        self.assertEqual(run["measurements"], 7)
        self.assertEqual(run["stop_reason"], "measurement budget")
        self.assertAlmostEqual(run["simulated_s"], sum(r[2] + r[3] for r in firsts) * 1e-3)
        self.assertEqual(len(run["first_batch_performance"]), 7)

    def test_stop_reasons(self):
        self.assertEqual(convert.convert_run(self.ga, self.optimum_s, 40, 16)["stop_reason"],
                         "measurement budget")
        # The raw run holds 40 distinct configurations: asked for 400, it ended on its own...
        self.assertEqual(convert.convert_run(self.ga, self.optimum_s, 400, 16)["stop_reason"],
                         "strategy finished")
        # ...unless those were all the valid configurations there are.
        exhausted = dict(self.ga, valid=40)
        self.assertEqual(convert.convert_run(exhausted, self.optimum_s, 400, 16)["stop_reason"],
                         "space exhausted")

    def test_simulated_time_is_recorded_cost_of_each_distinct_measurement(self):
        run = convert.convert_run(self.ils, self.optimum_s, 40, 16)
        entries = self.cache["cache"]
        expected = sum(entries[row[0]]["compile_time"] + entries[row[0]]["benchmark_time"]
                       for row in distinct_in_order(self.ils["evaluations"])[:40])
        self.assertAlmostEqual(run["simulated_s"], expected * 1e-3, places=9)

    def test_best_curve_has_one_point_per_improvement(self):
        run = convert.convert_run(self.ga, self.optimum_s, 40, 16)
        best, spent, expected = math.inf, 0.0, []
        for number, row in enumerate(distinct_in_order(self.ga["evaluations"])[:40], 1):
            spent += (row[2] + row[3]) * 1e-3
            if not convert.is_failure(row[1]) and row[1] * 1e-3 < best:
                best = row[1] * 1e-3
                expected.append([number, spent, best])
        self.assertEqual(len(run["best_curve"]), len(expected))
        for got, want in zip(run["best_curve"], expected):
            self.assertEqual(got[0], want[0])
            self.assertAlmostEqual(got[1], want[1], places=9)
            self.assertAlmostEqual(got[2], want[2], places=15)
        times = [point[2] for point in run["best_curve"]]
        self.assertEqual(times, sorted(times, reverse=True))
        self.assertEqual(len(set(times)), len(times))

    def test_first_batch_performance_zero_for_failures(self):
        run = convert.convert_run(self.ga, self.optimum_s, 40, 16)
        firsts = distinct_in_order(self.ga["evaluations"])[:16]
        self.assertEqual(len(run["first_batch_performance"]), 16)
        for row, performance in zip(firsts, run["first_batch_performance"]):
            if convert.is_failure(row[1]):
                self.assertEqual(performance, 0.0)
            else:
                self.assertAlmostEqual(performance, self.optimum_s / (row[1] * 1e-3))
                self.assertLessEqual(performance, 1.0 + 1e-12)

    def test_tuner_time_is_kernel_tuners_strategy_time(self):
        run = convert.convert_run(self.ga, self.optimum_s, 40, 16)
        self.assertGreater(run["tuner_cpu_s"], 0.0)
        self.assertLessEqual(run["tuner_cpu_s"],
                             sum(row[4] for row in self.ga["evaluations"]) * 1e-3 + 1e-12)

    def test_missing_valid_configuration_is_reported(self):
        cache = json.loads(json.dumps(self.cache))
        del cache["cache"]["1,992,1,2"]
        space = convert.describe_space("pnpoly_small", CACHE, cache, RESTRICTIONS)
        self.assertEqual(space["missing"], ["1,992,1,2"])
        self.assertEqual(space["info"]["valid"], 130)
        self.assertGreater(space["missing_cost_ms"], 0.0)

    def test_results_document_shape(self):
        runs = [convert.convert_run(raw, self.optimum_s, 40, 16) for raw in (self.ils, self.ga)]
        document = convert.results_document("t", "m", "c", {}, [self.space["info"]], runs)
        self.assertEqual(document["schema"], "glimpse-bench-results/1")
        self.assertEqual([r["strategy"] for r in document["runs"]],
                         ["genetic_algorithm", "greedy_ils"])
        self.assertEqual(document["summaries"], [])
        json.dumps(document, allow_nan=False)  # plain JSON: no inf / NaN


class MalformedInputTest(unittest.TestCase):
    def write(self, name, text, compress=False):
        path = os.path.join(self.directory.name, name)
        opener = gzip.open if compress else open
        with opener(path, "wt", encoding="utf-8") as handle:
            handle.write(text)
        return path

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.directory.cleanup()

    def assertInputError(self, function, path, *needles):
        with self.assertRaises(convert.InputError) as caught:
            function(path)
        message = str(caught.exception)
        self.assertIn(path, message)
        self.assertNotIn("\n", message)
        for needle in needles:
            self.assertIn(needle, message)

    def test_missing_file(self):
        self.assertInputError(convert.load_cache, os.path.join(DATA, "absent.json.gz"),
                              "no such file")

    def test_not_json(self):
        path = self.write("broken.json.gz", '{"cache": {', compress=True)
        self.assertInputError(convert.load_cache, path, "not valid JSON")

    def test_cache_without_tune_params(self):
        path = self.write("c.json", json.dumps({"tune_params_keys": ["a"], "cache": {}}))
        self.assertInputError(convert.load_cache, path, "tune_params")

    def test_cache_entry_without_time(self):
        cache = {"tune_params_keys": ["a"], "tune_params": {"a": [1]}, "cache": {"1": {"a": 1}}}
        path = self.write("c.json", json.dumps(cache))
        self.assertInputError(convert.load_cache, path, 'cache."1"', "time")

    def test_raw_run_with_bad_row(self):
        with open(RAW_GA, encoding="utf-8") as handle:
            raw = json.load(handle)
        raw["evaluations"][3] = [raw["evaluations"][3][0], 1.0, "fast", 0.0, 0.0]
        path = self.write("raw.json", json.dumps(raw))
        self.assertInputError(convert.load_raw_run, path, "evaluations[3].compile_time")

    def test_raw_run_of_another_format(self):
        path = self.write("raw.json", json.dumps({"format": "something else"}))
        self.assertInputError(convert.load_raw_run, path, "format")

    def test_t1_without_conditions(self):
        path = self.write("t1.json", json.dumps({"ConfigurationSpace": {}}))
        self.assertInputError(convert.load_t1_restrictions, path,
                              "ConfigurationSpace.Conditions")

    def test_restriction_naming_an_unknown_knob(self):
        cache = convert.load_cache(CACHE)
        with self.assertRaises(convert.InputError) as caught:
            convert.describe_space("g", CACHE, cache, ["block_size_y < 4"])
        self.assertIn("block_size_y < 4", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
