"""An Optuna sampler backed by glimpse's strategies, for integer and categorical search spaces with
constraints.

    import optuna, glimpse.optuna
    tune_params = {"block_x": [16, 32, 64, 128], "tile": [1, 2, 4, 8]}
    sampler = glimpse.optuna.GlimpseSampler(tune_params, restrictions=["block_x * tile <= 256"])
    study = optuna.create_study(sampler=sampler)

    def objective(trial):
        config = {name: trial.suggest_categorical(name, values)
                  for name, values in tune_params.items()}
        return measure(config)          # a time (lower is better), ≥ 0

    study.optimize(objective, n_trials=50)

The space is declared up front (as Kernel Tuner's tune_params, with restriction strings in its
expression syntax), because glimpse's strategies search a space they know whole; the objective
suggests each parameter with ``suggest_categorical(name, tune_params[name])``. Each trial gets the
next configuration of a batch the strategy proposes (``batch_size``); its value is observed when the
trial ends. A failed or pruned trial, and an infeasible one — a constraint set with
``trial.set_constraint`` (Optuna 5) or returned by ``constraints_func`` (older Optuna's way) above
0 — is observed as a failed measurement. Parameters the space
does not declare are sampled by ``independent_sampler`` (random by default).

The strategy minimises a non-negative figure: with ``direction="maximize"`` the values must be
positive, and their inverse is minimised.
"""

import math

import optuna
from optuna.distributions import CategoricalDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.study import StudyDirection
from optuna.trial import TrialState

from . import _core
from ._encoding import ParameterEncoding


class GlimpseSampler(BaseSampler):
    def __init__(self, tune_params, restrictions=(), tuner="xgb", seed=0, batch_size=8,
                 tuner_options=None, device="", kernel="", constraints_func=None,
                 independent_sampler=None):
        if batch_size < 1:
            raise ValueError(f"batch_size must be ≥ 1 (got {batch_size})")
        self._tune_params = {name: list(values) for name, values in tune_params.items()}
        self._encoding = ParameterEncoding(self._tune_params, list(restrictions))
        if self._encoding.dropped_restrictions:
            raise _core.Error("restrictions must be strings in glimpse's (Kernel Tuner's) "
                              "expression syntax; pass others as constraints_func")
        self._tuner = _core.Tuner(tuner, self._encoding.space, tuner_options, seed=seed,
                                  device=device, kernel=kernel)
        self._batch_size = batch_size
        self._constraints_func = constraints_func
        self._independent = independent_sampler or RandomSampler(seed=seed)
        self._queue = []
        self._given = {}  # trial number → the configuration it was given
        self._exhausted = False

    @property
    def space(self):
        return self._encoding.space

    def reseed_rng(self):
        self._independent.reseed_rng()

    def infer_relative_search_space(self, study, trial):
        return {name: CategoricalDistribution(values)
                for name, values in self._tune_params.items()}

    def sample_relative(self, study, trial, search_space):
        if not search_space or self._exhausted:
            return {}
        if not self._queue:
            self._queue = self._tuner.propose(self._batch_size)
            if not self._queue:
                self._exhausted = True  # every valid configuration was tried
                return {}
        config = self._queue.pop(0)
        self._given[trial.number] = config
        return self._encoding.as_dict(config)

    def sample_independent(self, study, trial, param_name, param_distribution):
        return self._independent.sample_independent(study, trial, param_name, param_distribution)

    def after_trial(self, study, trial, state, values):
        config = self._given.pop(trial.number, None)
        if config is None:
            config = self._config_of(trial)  # an enqueued or independently sampled trial
            if config is None:
                return
        time, status = None, "unknown"
        if state == TrialState.COMPLETE and values:
            time = self._as_time(values[0], study.direction)
            status = "ok" if time is not None else "unknown"
        if state == TrialState.COMPLETE and self._infeasible(trial):
            time, status = None, "instantiation"
        self._tuner.observe([config], [time], [status])

    def _infeasible(self, trial):
        constraints = list(getattr(trial, "constraints", {}).values())  # trial.set_constraint
        if self._constraints_func is not None:
            constraints += list(self._constraints_func(trial))
        return any(c > 0 for c in constraints)

    def _config_of(self, trial):
        try:
            config = self._encoding.config({n: trial.params[n] for n in self._encoding.names})
            return config if self._encoding.space.is_valid(config) else None
        except (KeyError, _core.Error):
            return None

    @staticmethod
    def _as_time(value, direction):
        if value is None or not math.isfinite(value):
            return None
        if direction == StudyDirection.MAXIMIZE:
            if value <= 0:
                raise ValueError(f"GlimpseSampler maximises positive values only (got {value})")
            return 1.0 / value
        if value < 0:
            raise ValueError(f"GlimpseSampler minimises values ≥ 0, such as times (got {value})")
        return value


__all__ = ["GlimpseSampler"]
