"""glimpse driven by Kernel Tuner (1.5) in simulation mode on a recorded cache file."""

import json

import pytest

kernel_tuner = pytest.importorskip("kernel_tuner")

import glimpse  # noqa: E402
import glimpse.kernel_tuner  # noqa: E402


def unique_configs(results, names):
    return {tuple(r[n] for n in names) for r in results}


@pytest.mark.parametrize("tuner", ["glimpse", "xgb", "random"])
def test_kernel_tuner_runs_a_glimpse_strategy_within_its_budget(pnpoly_cache, tuner):
    strategy = glimpse.kernel_tuner.strategy(tuner=tuner, tuner_options=(
        {"quiet": True} if tuner == "glimpse" else {}))
    results, _ = kernel_tuner.tune_cache(pnpoly_cache, strategy=strategy,
                                         strategy_options={"max_fevals": 40, "seed": 5},
                                         quiet=True)
    cache = json.load(open(pnpoly_cache))
    names = cache["tune_params_keys"]
    measured = unique_configs(results, names)
    assert len(measured) == 40  # exactly Kernel Tuner's budget of unique evaluations
    recorded = {tuple(e[n] for n in names) for e in cache["cache"].values()}
    assert measured <= recorded
    # The device Kernel Tuner tunes on reached glimpse's strategy, and the table knows it.
    assert strategy.last_run["device"] == "NVIDIA GeForce RTX 3090"
    assert glimpse.gpu(strategy.last_run["device"])["name"] == "NVIDIA GeForce RTX 3090"


def test_the_same_seed_gives_the_same_run(pnpoly_cache):
    runs = []
    for _ in range(2):
        results, _ = kernel_tuner.tune_cache(
            pnpoly_cache, strategy=glimpse.kernel_tuner.strategy(tuner="xgb"),
            strategy_options={"max_fevals": 24, "seed": 9}, quiet=True)
        runs.append([r["time"] for r in results])
    assert runs[0] == runs[1]


def test_an_unknown_strategy_option_is_refused(pnpoly_cache):
    with pytest.raises(ValueError, match="unknown strategy option 'popsize'"):
        kernel_tuner.tune_cache(pnpoly_cache, strategy=glimpse.kernel_tuner.strategy,
                                strategy_options={"max_fevals": 4, "popsize": 3}, quiet=True)
