"""glimpse as an Optuna sampler."""

import pytest

optuna = pytest.importorskip("optuna")

import glimpse  # noqa: E402
from glimpse.optuna import GlimpseSampler  # noqa: E402
from conftest import repo_path  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.WARNING)


def recorded_objective(recorded):
    params = recorded.space.tune_params

    def objective(trial):
        config = {n: trial.suggest_categorical(n, v) for n, v in params.items()}
        entry = recorded.lookup(config)
        if entry is None or entry["time_s"] is None:
            raise optuna.TrialPruned()  # a configuration that does not run
        return entry["time_s"]

    return objective


def test_a_study_samples_new_valid_configurations_from_glimpse():
    recorded = glimpse.load_recorded(repo_path("data", "recorded", "pnpoly", "RTX_3090.json.gz"))
    sampler = GlimpseSampler(recorded.space.tune_params, tuner="xgb", seed=3, batch_size=4)
    study = optuna.create_study(sampler=sampler)
    study.optimize(recorded_objective(recorded), n_trials=24)
    configs = [tuple(t.params[n] for n in recorded.space.knob_names) for t in study.trials]
    assert len(configs) == 24 and len(set(configs)) == 24
    best_known = recorded.best()[1]
    assert study.best_value >= best_known


def test_restrictions_and_constraints_are_respected_and_the_space_runs_out():
    params = {"a": [1, 2, 3, 4], "b": [1, 2, 3]}
    infeasible = {(1, 1)}

    def constraints(trial):
        return [1.0 if (trial.params["a"], trial.params["b"]) in infeasible else 0.0]

    sampler = GlimpseSampler(params, restrictions=["a * b <= 4"], tuner="random", seed=1,
                             constraints_func=constraints)
    told = []
    observe = sampler._tuner.observe
    sampler._tuner = type("Spy", (), {"propose": sampler._tuner.propose,
                                      "observe": lambda self, c, t, s: (told.append((c, t, s)),
                                                                        observe(c, t, s))})()
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: float(t.suggest_categorical("a", params["a"]) +
                                   t.suggest_categorical("b", params["b"])), n_trials=9)
    pairs = [(t.params["a"], t.params["b"]) for t in study.trials]
    valid = [(a, b) for a in params["a"] for b in params["b"] if a * b <= 4]
    assert len(valid) == 7 and sorted(pairs[:7]) == sorted(valid)  # all valid, each once
    assert len(pairs) == 9  # then the strategy has nothing new: the independent sampler goes on
    # The infeasible trial was observed as a failure, the others with their values.
    [(config, times, statuses)] = [o for o in told if (o[0][0]["a"], o[0][0]["b"]) == (1, 1)]
    assert times == [None] and statuses == ["instantiation"]
    assert all(t == [float(c[0]["a"] + c[0]["b"])] for c, t, _ in told if c[0] != {"a": 1, "b": 1})


def test_a_negative_objective_is_refused_with_the_reason():
    sampler = GlimpseSampler({"a": [1, 2]}, tuner="random")
    study = optuna.create_study(sampler=sampler)
    with pytest.raises(ValueError, match="values ≥ 0"):
        study.optimize(lambda t: -float(t.suggest_categorical("a", [1, 2])), n_trials=1)


def test_a_constraint_set_by_the_objective_makes_the_trial_a_failure():
    sampler = GlimpseSampler({"a": [1, 2, 3]}, tuner="grid")
    told = []
    observe = sampler._tuner.observe
    sampler._tuner = type("Spy", (), {"propose": sampler._tuner.propose,
                                      "observe": lambda self, c, t, s: (told.append((c, t, s)),
                                                                        observe(c, t, s))})()

    def objective(trial):
        a = trial.suggest_categorical("a", [1, 2, 3])
        trial.set_constraint("even", 1.0 if a % 2 else 0.0)
        return float(a)

    optuna.create_study(sampler=sampler).optimize(objective, n_trials=3)
    by_value = {c[0]["a"]: (t[0], s[0]) for c, t, s in told}
    assert by_value == {1: (None, "instantiation"), 2: (2.0, "ok"), 3: (None, "instantiation")}
