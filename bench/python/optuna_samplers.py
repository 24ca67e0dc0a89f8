"""glimpse's Optuna sampler against Optuna's TPE on recorded spaces.

The objective looks a configuration up in a recorded space (the shared datasets) and returns its
recorded time; a configuration that failed or that the recording lacks is a pruned trial. Both
samplers get the same restrictions: GlimpseSampler as the kernel's T1 restriction strings (it never
proposes a configuration that breaks one), and every sampler through `trial.set_constraint`
(1 when a restriction is broken, and the trial is pruned), which TPE reads. A run's cost is the number of trials until one
within 95 % of the space's best. TPE runs with Optuna's defaults (in Optuna 5, multivariate TPE for a
single objective) and as the independent TPE (multivariate=False).

glimpse's hardware-aware tuner reads the GPU's Blueprint, with a prior and a validity model trained
without that GPU (as bench/python/kernel_tuner_strategies.py).

Usage (from the repository root):
  PYTHONPATH=build/ci/python .venv/bin/python bench/python/optuna_samplers.py \
      --out bench/results/python_optuna.json [--seeds 5] [--trials 200] [--jobs 2]
"""

import argparse
import os
import tempfile
import time

from kernel_tuner_strategies import DATASETS, SPACES, held_out_models, run_all, t1_restrictions

SAMPLERS = ["glimpse", "glimpse-xgb", "tpe", "tpe-independent", "random"]


def one_run(job):
    import optuna

    import glimpse
    from glimpse.optuna import GlimpseSampler

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    kernel, gpu, name, seed, trials, models = job
    recorded = glimpse.load_recorded(os.path.join(DATASETS, kernel, gpu + ".json.gz"))
    restrictions = t1_restrictions(kernel)
    space = glimpse.Space(recorded.space.tune_params, restrictions)
    params = space.tune_params
    best = recorded.best()[1]

    if name.startswith("glimpse"):
        tuner, options = "xgb", {}
        if name == "glimpse":
            tuner = "glimpse"
            options = {"prior_model": models[0], "validity_model": models[1], "quiet": True}
        sampler = GlimpseSampler(params, restrictions, tuner=tuner, seed=seed,
                                 tuner_options=options, device=recorded.device_name or gpu,
                                 kernel=kernel)
    elif name == "tpe":
        sampler = optuna.samplers.TPESampler(seed=seed)
    elif name == "tpe-independent":
        sampler = optuna.samplers.TPESampler(seed=seed, multivariate=False)
    else:
        sampler = optuna.samplers.RandomSampler(seed=seed)

    def objective(trial):
        config = {n: trial.suggest_categorical(n, v) for n, v in params.items()}
        valid = space.is_valid(config)
        trial.set_constraint("restrictions", 0.0 if valid else 1.0)
        if not valid:
            raise optuna.TrialPruned()
        entry = recorded.lookup(config)
        if entry is None or entry["time_s"] is None:
            raise optuna.TrialPruned()
        return entry["time_s"]

    study = optuna.create_study(sampler=sampler)
    started = time.perf_counter()
    reached = {}
    best_so_far = float("inf")

    def watch(study, trial):
        nonlocal best_so_far
        if trial.value is not None:
            best_so_far = min(best_so_far, trial.value)
        for goal in (0.95, 0.99):
            if goal not in reached and best_so_far <= best / goal:
                reached[goal] = trial.number + 1

    study.optimize(objective, n_trials=trials, callbacks=[watch])
    configs = {tuple(t.params.get(n) for n in params) for t in study.trials}
    return {"kernel": kernel, "gpu": gpu, "sampler": name, "seed": seed,
            "to95": reached.get(0.95), "to99": reached.get(0.99), "trials": len(study.trials),
            "distinct": len(configs), "wall_s": round(time.perf_counter() - started, 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--glimpse", default="build/ci/glimpse")
    parser.add_argument("--samplers", default=",".join(SAMPLERS))
    args = parser.parse_args()
    folder = os.path.join(tempfile.gettempdir(), "glimpse-kt-bench")
    os.makedirs(folder, exist_ok=True)
    jobs = []
    for kernel, gpu in SPACES:
        models = held_out_models(args.glimpse, gpu, folder)
        for name in args.samplers.split(","):
            for seed in range(1, args.seeds + 1):
                jobs.append((kernel, gpu, name, seed, args.trials, models))
    run_all(jobs, one_run, args.out, {"trials": args.trials, "seeds": args.seeds}, args.jobs)

if __name__ == "__main__":
    main()
