"""Cut the small recorded space the converter tests use out of pnpoly/RTX_3090.

A real recording (times, failures and costs as measured), reduced to 150 configurations and
stripped of the per-repeat samples so that the fixture stays a few kilobytes:
  python3 bench/peers/tests/data/make_small_space.py \
      ../shared/datasets/benchmark_hub/pnpoly/RTX_3090.json.gz \
      bench/peers/tests/data/pnpoly_small/RTX_3090.json.gz
"""

import gzip
import itertools
import json
import sys

SUBSET = {
    "between_method": [0, 1],
    "block_size_x": [32, 256, 544, 800, 992],
    "tile_size": [1, 4, 12, 16, 20],
    "use_method": [0, 1, 2],
}
KEPT_FIELDS = ["time", "compile_time", "verification_time", "benchmark_time"]


def main(source, target):
    """Writes the subset of `source` to `target` (gzip, Kernel Tuner cache format)."""
    with gzip.open(source, "rt", encoding="utf-8") as handle:
        full = json.load(handle)
    keys = full["tune_params_keys"]
    cache = {}
    for values in itertools.product(*(SUBSET[name] for name in keys)):
        key = ",".join(str(value) for value in values)
        entry = full["cache"][key]
        cache[key] = dict(zip(keys, values), **{f: entry[f] for f in KEPT_FIELDS})
    small = {name: full[name] for name in ("device_name", "kernel_name", "problem_size")}
    small.update(tune_params_keys=keys, tune_params={name: SUBSET[name] for name in keys},
                 objective="time", cache=cache)
    with gzip.open(target, "wt", encoding="utf-8") as handle:
        json.dump(small, handle)


if __name__ == "__main__":
    main(*sys.argv[1:3])
