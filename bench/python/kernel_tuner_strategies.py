"""glimpse's strategies inside Kernel Tuner against Kernel Tuner's own, on recorded spaces.

Every run is Kernel Tuner 1.5's `tune_cache` in simulation mode on a recorded cache (the shared
datasets), with the kernel's T1 restrictions, `max_fevals` as the budget and the same seeds for
every strategy (Kernel Tuner's strategies draw from numpy's and Python's global generators, seeded
before each run; glimpse's from its `seed` option). A run's cost is the number of unique
configurations Kernel Tuner evaluated until one within 95 % of the space's best was among them.

glimpse's hardware-aware tuner uses a prior and a validity model trained without the GPU being
tuned (`glimpse train prior|validity --exclude-device GPU`), so that no run sees its own space.

Usage (from the repository root, with .venv and build/ci built):
  PYTHONPATH=build/ci/python .venv/bin/python bench/python/kernel_tuner_strategies.py \
      --out bench/results/python_kernel_tuner.json [--seeds 5] [--budget 200] [--jobs 2]
"""

import argparse
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

DATASETS = "../shared/datasets/benchmark_hub"
# (kernel folder, GPU file) — one GPU per kernel space, of different vendors and generations.
SPACES = [
    ("gemm", "RTX_3090"),
    ("convolution", "RTX_2080_Ti"),
    ("pnpoly", "RTX_3060_laptop"),
    ("convolution_milo", "A4000"),
    ("dedispersion_milo", "W6600"),
    ("convolution_milo", "MI250X"),
]
KERNEL_TUNER_STRATEGIES = ["random_sample", "genetic_algorithm", "simulated_annealing",
                           "greedy_ils", "mls", "pso", "firefly_algorithm", "diff_evo",
                           "dual_annealing", "basinhopping", "bayes_opt"]
GLIMPSE_STRATEGIES = ["glimpse", "xgb"]


def t1_restrictions(kernel):
    # gemm has no T1 file: its cache holds valid configurations only, which Kernel Tuner's
    # restriction "in the cache" (tune_cache) keeps to.
    path = os.path.join(DATASETS, "t1", kernel + ".json")
    if not os.path.exists(path):
        return []
    t1 = json.load(open(path))
    return [c["Expression"] for c in t1["ConfigurationSpace"]["Conditions"]]


def plain_cache(kernel, gpu, folder):
    path = os.path.join(folder, f"{kernel}_{gpu}.json")
    if not os.path.exists(path):
        with gzip.open(os.path.join(DATASETS, kernel, gpu + ".json.gz"), "rb") as src, \
                open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return path


def held_out_models(glimpse_cli, gpu, folder):
    prior = os.path.join(folder, f"prior-no-{gpu}.json")
    validity = os.path.join(folder, f"validity-no-{gpu}.json")
    for kind, out in (("prior", prior), ("validity", validity)):
        if not os.path.exists(out):
            subprocess.run([glimpse_cli, "train", kind, "--spaces", DATASETS, "--exclude-device",
                            gpu, "--out", out], check=True, stdout=subprocess.DEVNULL)
    return prior, validity


def optimum(cache_path):
    cache = json.load(open(cache_path))
    times = [e["time"] for e in cache["cache"].values()
             if isinstance(e.get("time"), (int, float)) and e["time"] > 0]
    return min(times), cache["tune_params_keys"]


def measurements_to(results, names, target):
    seen = set()
    for result in results:
        key = tuple(result[n] for n in names)
        seen.add(key)
        t = result.get("time")
        if "__error__" not in result and isinstance(t, (int, float)) and t <= target:
            return len(seen)
    return None


def one_run(job):
    import kernel_tuner
    import glimpse.kernel_tuner

    kernel, gpu, strategy_name, seed, budget, cache_path, models = job
    best, names = optimum(cache_path)
    options = {"max_fevals": budget}
    if strategy_name in GLIMPSE_STRATEGIES:
        # Kernel Tuner tells the strategy the cache's device name; where the cache has none
        # (MI250X), the user names the GPU, as strategy_options={"device": …} allows.
        device = "" if json.load(open(cache_path)).get("device_name") else gpu
        tuner_options = {}
        if strategy_name == "glimpse":
            tuner_options = {"prior_model": models[0], "validity_model": models[1], "quiet": True}
        strategy = glimpse.kernel_tuner.strategy(tuner=strategy_name, kernel=kernel,
                                                 device=device, tuner_options=tuner_options)
        options["seed"] = seed
    else:
        strategy = strategy_name
    random.seed(seed)
    np.random.seed(seed)
    started = time.perf_counter()
    results, _ = kernel_tuner.tune_cache(cache_path, restrictions=t1_restrictions(kernel),
                                         strategy=strategy, strategy_options=options, quiet=True)
    wall = time.perf_counter() - started
    unique = len({tuple(r[n] for n in names) for r in results})
    return {"kernel": kernel, "gpu": gpu, "strategy": strategy_name, "seed": seed,
            "to95": measurements_to(results, names, best / 0.95),
            "to99": measurements_to(results, names, best / 0.99), "measured": unique,
            "wall_s": round(wall, 2)}


def run_all(jobs, run, out_path, header, workers):
    """Runs `run` on every job in `workers` processes, printing progress and rewriting out_path
    (header + "runs") after each, so that a stopped benchmark keeps what it did."""
    runs = []
    started = time.time()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for i, result in enumerate(pool.map(run, jobs), 1):
            runs.append(result)
            print(f"[{i}/{len(jobs)}, {time.time() - started:.0f} s] {result}", file=sys.stderr,
                  flush=True)
            with open(out_path, "w") as out:
                json.dump(dict(header, runs=runs), out, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--budget", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--glimpse", default="build/ci/glimpse")
    parser.add_argument("--strategies", default=",".join(GLIMPSE_STRATEGIES +
                                                         KERNEL_TUNER_STRATEGIES))
    parser.add_argument("--spaces", default="", help="kernel/GPU,… (default: all six)")
    args = parser.parse_args()
    spaces = ([tuple(s.split("/")) for s in args.spaces.split(",")] if args.spaces else SPACES)
    folder = os.path.join(tempfile.gettempdir(), "glimpse-kt-bench")
    os.makedirs(folder, exist_ok=True)
    jobs = []
    for kernel, gpu in spaces:
        cache_path = plain_cache(kernel, gpu, folder)
        models = held_out_models(args.glimpse, gpu, folder)
        for strategy in args.strategies.split(","):
            for seed in range(1, args.seeds + 1):
                jobs.append((kernel, gpu, strategy, seed, args.budget, cache_path, models))
    run_all(jobs, one_run, args.out, {"budget": args.budget, "seeds": args.seeds}, args.jobs)

if __name__ == "__main__":
    main()
