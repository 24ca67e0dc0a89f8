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


class FakeDevice:
    name = "NVIDIA GeForce RTX 3090"


class FakeKernelOptions:
    kernel_name = "pnpoly"


class RecordingRunner:
    """A real (not simulated) runner's interface over a recorded space, which remembers what it
    was asked to measure."""

    simulation_mode = False
    dev = FakeDevice()
    kernel_options = FakeKernelOptions()

    def __init__(self, recorded, names):
        self.recorded, self.names, self.asked = recorded, names, []

    def add_strategy_time(self, _):
        pass

    def run(self, configs, tuning_options):
        results = []
        for values in configs:
            if tuning_options.budget.is_done():
                results.append(None)
                continue
            tuning_options.budget.add_evaluations(1)
            config = dict(zip(self.names, values))
            self.asked.append(tuple(values))
            entry = self.recorded.lookup(config)
            if entry is None or entry["time_s"] is None:
                from kernel_tuner.util import RuntimeFailedConfig

                results.append(dict(config, time=RuntimeFailedConfig(),
                                    __error__=RuntimeFailedConfig()))
            else:
                results.append(dict(config, time=entry["time_s"] * 1000))
        return results


def test_in_a_real_run_the_cache_file_is_what_glimpse_resumes_from():
    from kernel_tuner.interface import Options
    from kernel_tuner.searchspace import Searchspace
    from kernel_tuner.util import TuningBudget

    from conftest import repo_path

    recorded = glimpse.load_recorded(repo_path("data", "recorded", "pnpoly", "RTX_3090.json.gz"))
    tune_params = recorded.space.tune_params
    names = list(tune_params)
    cached = [config for config, entry in recorded.entries()[:12] if entry["time_s"]]
    cache = {",".join(str(c[n]) for n in names): dict(c, time=recorded.lookup(c)["time_s"] * 1000)
             for c in cached}
    options = Options(strategy_options=Options({"max_fevals": 20, "tuner": "xgb", "seed": 2}),
                      restrictions_unmodified=None, objective=["time"],
                      objective_higher_is_better=[False], cache=cache, verbose=False,
                      budget=TuningBudget(None, 20), metrics=None)
    runner = RecordingRunner(recorded, names)
    strategy = glimpse.kernel_tuner.Strategy()
    results = strategy.tune(Searchspace(tune_params, [], 1024), runner, options)
    assert strategy.last_run["resumed_from_cache"] == len(cached) > 0
    assert strategy.last_run["device"] == "NVIDIA GeForce RTX 3090"
    # What is in the cache is never measured again; the budget went to new configurations.
    assert not set(runner.asked) & {tuple(c[n] for n in names) for c in cached}
    assert len(runner.asked) == 20 == len(set(runner.asked)) == len(results)
