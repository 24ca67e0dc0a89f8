"""glimpse as a Kernel Tuner strategy.

Kernel Tuner (1.5) accepts any object with a ``tune(searchspace, runner, tuning_options)`` method
as its ``strategy``, so one argument changes::

    import glimpse.kernel_tuner
    kernel_tuner.tune_kernel(..., strategy=glimpse.kernel_tuner.strategy,
                             strategy_options={"max_fevals": 100})

The default is glimpse's hardware-aware tuner ("glimpse"), which reads the device Kernel Tuner is
tuning on (its name → the GPU table's entry → the Blueprint). ``glimpse.kernel_tuner.Strategy(
tuner="xgb")`` (any of glimpse.known_tuners()) picks another strategy. Options may also come
through ``strategy_options``: "tuner", "seed", "batch_size", "kernel", "device" and
"tuner_options" (a dict), beside Kernel Tuner's own "max_fevals" and "time_limit".

What Kernel Tuner decides stays Kernel Tuner's: which configurations are valid (its restrictions
and the device's thread limit: a proposal it rejects is told to glimpse as an invalid
configuration, not measured), the measurement (its runner, cache and budget), and the results it
returns. In a real (not simulated) run, the configurations already in Kernel Tuner's cache file for
this device are given to glimpse's strategy as earlier observations, as glimpse resumes from its
database; in simulation mode the cache is the recorded space itself and is not read.
"""

import logging
import math
import sys

from . import _core
from ._encoding import ParameterEncoding

_log = logging.getLogger("glimpse")

_OWN_OPTIONS = ("tuner", "seed", "batch_size", "kernel", "device", "tuner_options")
# Kernel Tuner's options that every strategy receives.
_KERNEL_TUNER_OPTIONS = ("max_fevals", "time_limit", "x0", "searchspace_construction_options",
                         "constraint_aware")


def _status_of(result):
    error = result.get("__error__") if isinstance(result, dict) else None
    if error is None:
        return "ok"
    name = type(error).__name__
    return {
        "CompilationFailedConfig": "compile-device",
        "RuntimeFailedConfig": "runtime-device",
        "InvalidConfig": "instantiation",
    }.get(name, "unknown")


class Strategy:
    """A Kernel Tuner strategy that asks a glimpse strategy what to measure next."""

    def __init__(self, tuner="glimpse", seed=0, batch_size=8, kernel="", device="",
                 tuner_options=None):
        self.tuner = tuner
        self.seed = seed
        self.batch_size = batch_size
        self.kernel = kernel
        self.device = device
        self.tuner_options = dict(tuner_options or {})
        # What the last tune() did, for the curious: proposals Kernel Tuner rejected, the device
        # glimpse was told, the number of cache entries observed before the first proposal.
        self.last_run = {}

    def __call__(self, **changes):
        """A copy with other settings: glimpse.kernel_tuner.strategy(tuner="xgb")."""
        settings = dict(tuner=self.tuner, seed=self.seed, batch_size=self.batch_size,
                        kernel=self.kernel, device=self.device, tuner_options=self.tuner_options)
        unknown = set(changes) - set(settings)
        if unknown:
            raise TypeError(f"unknown setting(s) {sorted(unknown)}; accepted: {sorted(settings)}")
        settings.update(changes)
        return Strategy(**settings)

    def _settings(self, strategy_options):
        for key in strategy_options:
            if key not in _OWN_OPTIONS and key not in _KERNEL_TUNER_OPTIONS:
                raise ValueError(
                    f"glimpse strategy: unknown strategy option '{key}'; accepted: "
                    f"{', '.join(sorted(_OWN_OPTIONS + _KERNEL_TUNER_OPTIONS))}")
        get = strategy_options.get
        options = dict(self.tuner_options)
        options.update(get("tuner_options") or {})
        return (get("tuner", self.tuner), int(get("seed", self.seed)),
                int(get("batch_size", self.batch_size)), get("kernel", self.kernel),
                get("device", self.device), options)

    def tune(self, searchspace, runner, tuning_options):
        from kernel_tuner.strategies.common import CostFunc
        from kernel_tuner.util import StopCriterionReached

        strategy_options = dict(tuning_options.strategy_options or {})
        name, seed, batch_size, kernel, device, options = self._settings(strategy_options)
        if batch_size < 1:
            raise ValueError(f"glimpse strategy: batch_size must be ≥ 1 (got {batch_size})")
        restrictions = tuning_options.get("restrictions_unmodified") or []
        if not isinstance(restrictions, (list, tuple)):
            restrictions = [restrictions]
        encoding = ParameterEncoding(searchspace.tune_params, list(restrictions))
        if not device:
            device = getattr(getattr(runner, "dev", None), "name", "") or ""
        if not kernel:
            kernel = getattr(getattr(runner, "kernel_options", None), "kernel_name", "") or ""
        tuner = _core.Tuner(name, encoding.space, options, seed=seed, device=str(device),
                            kernel=str(kernel))
        higher_is_better = bool(tuning_options.objective_higher_is_better[0]
                                if isinstance(tuning_options.objective_higher_is_better, list)
                                else tuning_options.objective_higher_is_better)

        resumed = 0
        if not getattr(runner, "simulation_mode", False):
            resumed = self._observe_cache(tuner, encoding, tuning_options, higher_is_better)
        self.last_run = {"tuner": name, "device": device, "kernel": kernel, "rejected": 0,
                         "resumed_from_cache": resumed,
                         "restrictions_not_read": encoding.dropped_restrictions}

        cost_func = CostFunc(searchspace, tuning_options, runner, snap=False)
        try:
            while True:
                proposals = tuner.propose(batch_size)
                if not proposals:
                    break  # the space is exhausted
                valid, invalid = [], []
                for config in proposals:
                    values = encoding.values(config)
                    (valid if searchspace.is_param_config_valid(tuple(values)) else
                     invalid).append(config)
                if invalid:
                    self.last_run["rejected"] += len(invalid)
                    tuner.observe(invalid, [None] * len(invalid),
                                  ["instantiation"] * len(invalid))
                if not valid:
                    continue
                before = len(cost_func.results)
                costs = cost_func.eval_all([encoding.values(c) for c in valid],
                                           check_restrictions=False)
                results = cost_func.results[before:]
                times, statuses = [], []
                for cost, result in zip(costs, results):
                    status = _status_of(result)
                    value = cost[0] if isinstance(cost, list) else cost
                    if status != "ok" or value >= sys.float_info.max or not math.isfinite(value):
                        times.append(None)
                        statuses.append(status if status != "ok" else "unknown")
                    else:
                        times.append(self._as_time(value, higher_is_better))
                        statuses.append("ok" if times[-1] is not None else "unknown")
                tuner.observe(valid, times, statuses)
        except StopCriterionReached as stop:
            if tuning_options.verbose:
                print(stop)
        return cost_func.results

    @staticmethod
    def _as_time(cost, higher_is_better):
        # glimpse minimises a non-negative figure: Kernel Tuner's cost is the objective (lower is
        # better) or its negation (higher is better, e.g. GFLOP/s), whose inverse keeps the order.
        if higher_is_better:
            value = -cost
            return 1.0 / value if value > 0 else None
        return cost / 1000.0 if cost >= 0 else None  # Kernel Tuner's times are milliseconds

    @staticmethod
    def _observe_cache(tuner, encoding, tuning_options, higher_is_better):
        cache = tuning_options.get("cache") or {}
        objective = tuning_options.objective
        objective = objective[0] if isinstance(objective, list) else objective
        configs, times, statuses = [], [], []
        for entry in cache.values():
            try:
                config = encoding.config({n: entry[n] for n in encoding.names})
            except KeyError:
                continue
            value = entry.get(objective)
            if isinstance(value, (int, float)) and math.isfinite(value):
                cost = -value if higher_is_better else value
                time = Strategy._as_time(cost, higher_is_better)
            else:
                time = None
            configs.append(config)
            times.append(time)
            statuses.append("ok" if time is not None else "unknown")
        if configs:
            try:
                tuner.observe(configs, times, statuses)
            except _core.Error as error:
                _log.warning("glimpse: Kernel Tuner's cache not used (%s)", error)
                return 0
        return len(configs)


# The strategy to pass: tune_kernel(..., strategy=glimpse.kernel_tuner.strategy).
strategy = Strategy()
