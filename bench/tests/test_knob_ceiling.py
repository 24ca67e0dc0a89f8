"""bench/perf_eval/knob_ceiling.py: the knob encoding and the corpus reading (standard library);
the fit itself where the repository's .venv packages are importable."""
import gzip
import importlib.util
import json
import math
import os
import random
import tempfile
import unittest

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(BENCH, "perf_eval", "knob_ceiling.py")
spec = importlib.util.spec_from_file_location("knob_ceiling", SCRIPT)
knob_ceiling = importlib.util.module_from_spec(spec)
spec.loader.exec_module(knob_ceiling)


class EncodeTest(unittest.TestCase):
    def test_splits_orders_categories_and_numbers(self):
        categories = {}
        config = {"tile_k": [2, 1, 16], "order": [3, 0, 4, 2, 1], "layout": "NCHWc", "unroll": 1}
        # Name order: layout, order, tile_k, unroll.
        self.assertEqual(knob_ceiling.encode(config, categories),
                         [0.0, 3.0, 0.0, 4.0, 2.0, 1.0, 1.0, 0.0, 4.0, 1.0])
        # A second category value gets the next index; the first keeps its own.
        other = dict(config, layout="NCHWc_strided")
        self.assertEqual(knob_ceiling.encode(other, categories)[0], 1.0)
        self.assertEqual(knob_ceiling.encode(config, categories)[0], 0.0)


class LoadTest(unittest.TestCase):
    def test_only_ok_records_with_a_time_and_a_configuration(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "c.jsonl.gz")
            with gzip.open(path, "wt") as out:
                out.write(json.dumps({"format": "glimpse-perf-corpus"}) + "\n")
                ok = {"op": "a", "kind": "dense", "status": "ok", "time_s": 1e-3,
                      "config": {"x": [1, 2]}}
                out.write(json.dumps(ok) + "\n")
                out.write(json.dumps(dict(ok, status="run_error")) + "\n")
                out.write(json.dumps(dict(ok, time_s=0)) + "\n")
                out.write(json.dumps(dict(ok, op="b")) + "\n")
            by_op = knob_ceiling.load(path)
        self.assertEqual(sorted(by_op), ["a", "b"])
        self.assertEqual(len(by_op["a"]), 1)


def _have_fit_packages():
    try:
        import numpy  # noqa: F401
        import scipy  # noqa: F401
        import sklearn  # noqa: F401
    except ImportError:
        return False
    return True


@unittest.skipUnless(_have_fit_packages(), "numpy, scipy and scikit-learn (the repository's .venv)")
class FitTest(unittest.TestCase):
    def test_a_time_the_knobs_determine_ranks_and_one_they_do_not_does_not(self):
        rng = random.Random(3)
        by_op = {"a": [], "b": []}
        for _ in range(200):
            t = rng.choice([1, 2, 4, 8, 16])
            u = rng.choice([1, 2, 4])
            config = {"tile": [t, 64 // t], "unroll": u}
            by_op["a"].append({"kind": "k", "config": config, "time_s": 1e-3 * t / math.sqrt(u)})
            by_op["b"].append({"kind": "k", "config": config, "time_s": rng.uniform(1e-3, 2e-3)})
        by_kind = knob_ceiling.knob_taus(by_op, seed=0, test_fraction=0.25)
        determined, random_times = by_kind["k"]
        self.assertGreater(determined, 0.9)
        self.assertLess(abs(random_times), 0.3)


if __name__ == "__main__":
    unittest.main()
