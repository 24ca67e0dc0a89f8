#!/usr/bin/env python3
"""Tuning with the learned performance model on operators it never saw (docs/perf-tuning.md).

  study.py run --ops FILE --model M.json [--xgb-model X.json] --out DIR [--budget 64]
               [--seeds 1,2,3] [--strategies …] [--label NAME]
  study.py summarize --out DIR [--corpus C.jsonl.gz] [--json FILE]
  study.py drift --out DIR
  study.py recheck --out DIR [--passes 8] [--bench B] [--threads 2] [--json FILE]
                   [--only STRATEGY,…] [--best-from RECHECK_JSON [--best-top 8]]

`run` tunes every operator of --ops (one per line, '#' comments) with each strategy and seed on
this CPU, each (strategy, seed) into its own database DIR/<strategy>-s<seed>.db so that no run
resumes another's records, and appends what each run printed on standard error to
DIR/<strategy>-s<seed>.log under a '# <operator>' line. Strategies:

  learned            xgb with --cost-model M (first plan from the model, then its base margin)
  learned-firstplan  the same with --tuner-option pretrained=first-plan
  learned-noseeds    learned with --template-seeds 0: the model without the template seeds
  learned16-recheck  learned with --budget 12 --recheck 4: 16 measurements, the last 4 the
                     run's 4 fastest configurations measured again in one batch, so that its
                     choice compares them in one sitting rather than across the host's spells
  hardware16         --cost-model M --hardware-budget 16: 16 measurements in rounds of 4, the
                     online model refitted on the model's margin between rounds (before commit
                     1d2cd12 this flag meant one round: what hardware16-oneround is now)
  hardware16-recheck  --hardware-budget 16 --recheck 4: 12 in rounds of 3, then the 4 fastest
                     measured again in one batch (part of the 16)
  hardware16-diverse  hardware16 with --tuner-option diversity_filter_ratio=2: every round after
                     the first the 4 most diverse of the refitted model's 8 best (AutoTVM's
                     submodular pick over knob values)
  hardware16-oneround  the same with --batch 16: the model's 16 best, from one search
  hardware16-transfer  --cost-model X --hardware-budget 16: the rounds on the --xgb-model file
  hardware16-mean    --cost-model M+X --hardware-budget 16: the rounds on the mean of the two
                     models' predicted ln-times
  hardware16-choose  --cost-model M+X --hardware-budget 16 --tuner-option pretrained=choose:
                     the first round is two picks of each model, and the model whose picks ran
                     faster guides the other three rounds
  xgb-transfer       xgb with --cost-model X, X the --xgb-model file (glimpse train perf-model
                     --model xgb: XGBoost on loop features fitted on the corpus, AutoTVM's
                     load_history)
  xgb                AutoTVM's XGBoost tuner, cold: without glimpse's template seeds either
                     (--template-seeds 0), as AutoTVM has none
  random             uniform sampling without replacement, without the template seeds

The other strategies keep glimpse's CPU default of measuring up to 4 template seeds first (they
count towards the budget): they are glimpse's tuner with a model; xgb and random are the peers.
(Before 2026-12-06 xgb and random measured the seeds too; runs made between 2026-12-02, when the
seeds came, and then are not cold baselines.)

The strategies on X run only when --xgb-model is given or they are named.

--label NAME runs each strategy as STRATEGY@NAME (database DIR/STRATEGY@NAME-s<seed>.db): the
same strategies on other model files, in the same folder as the runs they are compared with, so
that one best known serves them all. study.json keeps each label's model files.

`summarize` reads every database's records in commit order and reports, per operator and
strategy (median over seeds): measurements to reach 90/95/99 % of the best known time (the best
over every run and, with --corpus, the corpus's records of the operator; quality = best known /
best so far), and the quality after 8/16/32/64 measurements. A run that never reaches a level
counts as the budget + 1 ("> budget" in the table; the hardware16 strategies' budget is 16). A
summary gives, per strategy, the medians over operators and how many times more measurements
AutoTVM-XGB cold needed to reach 95 % (median over operators of the per-operator ratio).

`recheck` re-times, in one sitting, every configuration that was some run's best so far (its
incumbent) on each operator: bench_cpu_templates, one process per operator and pass, the order
rotated from pass to pass (bench/cpu_remeasure_runs.py's), a configuration's time its fastest
pass. Each run's quality after n measurements is then the fastest re-timed incumbent over the
re-timed time of the run's own incumbent after n (the configuration its own measurements chose),
and the tables are `summarize`'s. Why: on a shared guest the same kernel reads up to a third
slower from one quarter hour to the next, so a run made in a slow spell can miss 95 % of a best
known that another run timed in a fast one, with the same configuration. Re-timed side by side the
host's speed is shared by all; what stays is which configurations the strategies chose. The
re-timing uses this build's code for each configuration, which may differ from the study's where
a template changed since (docs/perf-corpus.md, the template versions). A run's records are read
from DIR/<strategy>-s<seed>.db, or where there is none from the export
DIR/<strategy>-s<seed>.jsonl.gz (`glimpse db export`, gzipped) that a committed study keeps.
Its --json file also keeps every pass's time of each configuration ("passes"), which
bench/perf_tuning/crossfit.py --split reads to score the runs against a best configuration chosen
on half of the passes and timed on the other half (the fastest of many noisy times flatters the
configuration that drew it). --only re-times the runs of the strategies named, not the others.
--best-from adds another re-timing's fastest configurations of each operator (--best-top, 8) to
those re-timed, so that a study of few runs is scored against a larger study's best rather than
only its own.

`drift` tells whether the machine changed speed while the study ran, which biases runs made at
different times: over the configurations that at least 3 measurements (of any runs) timed, each
measurement's time divided by the median of its configuration's, binned by the UTC quarter hour
it started in. A bin with a median ratio above 1 measured the same kernels slower than the study
as a whole.
"""
import argparse
import collections
import datetime
import glob
import gzip
import json
import math
import os
import statistics
import subprocess
import sys

# AutoTVM's tuners have no template seeds: the peers, and the model alone, run without them.
NO_SEEDS = ["--template-seeds", "0"]
STRATEGIES = {  # name → the flags of `glimpse tune`, from the parsed arguments
    "learned": lambda args: ["--tuner", "xgb", "--cost-model", args.model],
    "learned-firstplan": lambda args: ["--tuner", "xgb", "--cost-model", args.model,
                                       "--tuner-option", "pretrained=first-plan"],
    "learned-noseeds": lambda args: STRATEGIES["learned"](args) + NO_SEEDS,
    "learned16-recheck": lambda args: STRATEGIES["learned"](args) + ["--budget", "12",
                                                                      "--recheck", "4"],
    "hardware16": lambda args: ["--cost-model", args.model, "--hardware-budget", "16"],
    "hardware16-recheck": lambda args: STRATEGIES["hardware16"](args) + ["--recheck", "4"],
    # Each round after the first: the 4 most diverse (AutoTVM's submodular pick by knob values)
    # of the model's 8 best, instead of its 4 best.
    "hardware16-diverse": lambda args: STRATEGIES["hardware16"](args) + [
        "--tuner-option", "diversity_filter_ratio=2"],
    "hardware16-oneround": lambda args: ["--cost-model", args.model, "--hardware-budget", "16",
                                         "--batch", "16"],
    "hardware16-transfer": lambda args: ["--cost-model", args.xgb_model,
                                         "--hardware-budget", "16"],
    "hardware16-mean": lambda args: ["--cost-model", f"{args.model}+{args.xgb_model}",
                                     "--hardware-budget", "16"],
    "hardware16-choose": lambda args: ["--cost-model", f"{args.model}+{args.xgb_model}",
                                       "--hardware-budget", "16",
                                       "--tuner-option", "pretrained=choose"],
    "xgb-transfer": lambda args: ["--tuner", "xgb", "--cost-model", args.xgb_model],
    "xgb": lambda args: ["--tuner", "xgb"] + NO_SEEDS,
    "random": lambda args: ["--tuner", "random"] + NO_SEEDS,
}
# The strategies that need a model file, and the argument that gives it.
NEEDS_MODEL = {"learned": ("--model",), "learned-firstplan": ("--model",),
               "learned-noseeds": ("--model",), "learned16-recheck": ("--model",),
               "hardware16": ("--model",), "hardware16-recheck": ("--model",),
               "hardware16-diverse": ("--model",),
               "hardware16-oneround": ("--model",),
               "hardware16-transfer": ("--xgb-model",), "xgb-transfer": ("--xgb-model",),
               "hardware16-mean": ("--model", "--xgb-model"),
               "hardware16-choose": ("--model", "--xgb-model")}
# The strategies that spend a fixed number of measurements whatever --budget says.
FIXED_BUDGET = {"learned16-recheck": 16, "hardware16": 16, "hardware16-recheck": 16,
                "hardware16-diverse": 16,
                "hardware16-oneround": 16, "hardware16-transfer": 16, "hardware16-mean": 16,
                "hardware16-choose": 16}
LEVELS = (0.90, 0.95, 0.99)
CHECKPOINTS = (8, 16, 32, 64)


def base_strategy(name):
    """The strategy of a run's name: 'hardware16@xeon' → 'hardware16'."""
    return name.split("@", 1)[0]


def read_ops(path):
    with open(path) as f:
        return [line.split("#")[0].strip() for line in f if line.split("#")[0].strip()]


def glimpse_binary(args):
    return args.glimpse or os.environ.get("GLIMPSE", "build/ci/glimpse")


def run(args):
    ops = read_ops(args.ops)
    if args.strategies:
        strategies = args.strategies.split(",")
    else:  # every strategy, those on the XGBoost model only with its file
        strategies = [s for s in STRATEGIES
                      if "--xgb-model" not in NEEDS_MODEL.get(s, ()) or args.xgb_model]
    for name in strategies:
        if name not in STRATEGIES:
            sys.exit(f"study.py: unknown strategy '{name}'; known: {', '.join(STRATEGIES)}")
    if args.label is not None and (not args.label or "@" in args.label or "/" in args.label):
        sys.exit(f"study.py: --label '{args.label}' must be a non-empty name without '@' or '/'")
    if any("--model" in NEEDS_MODEL.get(s, ()) for s in strategies) and not args.model:
        sys.exit("study.py: the learned strategies need --model FILE (glimpse train perf-model)")
    on_xgb_model = [s for s in strategies if "--xgb-model" in NEEDS_MODEL.get(s, ())]
    if on_xgb_model and not args.xgb_model:
        sys.exit(f"study.py: {', '.join(on_xgb_model)} need --xgb-model FILE "
                 "(glimpse train perf-model --model xgb)")
    os.makedirs(args.out, exist_ok=True)
    seeds = [int(s) for s in args.seeds.split(",")]
    runs = [f"{name}@{args.label}" if args.label else name for name in strategies]
    study = {"ops": ops, "canonical": {}, "strategies": runs, "seeds": seeds,
             "budget": args.budget, "model": args.model, "xgb_model": args.xgb_model,
             "threads": args.threads, "labels": {}}
    # A later run into the same folder (another strategy, more seeds or operators) adds to the
    # study instead of hiding what is there from `summarize`.
    previous_path = os.path.join(args.out, "study.json")
    if os.path.exists(previous_path):
        with open(previous_path) as f:
            previous = json.load(f)
        if previous.get("budget") != args.budget:
            sys.exit(f"study.py: {previous_path} was run with --budget {previous.get('budget')}; "
                     f"use that budget or another --out")
        merge = lambda old, new: old + [item for item in new if item not in old]
        study["ops"] = merge(previous["ops"], ops)
        study["strategies"] = merge(previous["strategies"], runs)
        study["seeds"] = merge(previous["seeds"], seeds)
        study["canonical"] = previous.get("canonical", {})
        study["labels"] = previous.get("labels", {})
        if args.label:  # the unlabelled runs' model files stay the study's own
            study["model"], study["xgb_model"] = previous.get("model"), previous.get("xgb_model")
        else:
            study["model"] = args.model or previous.get("model")
            study["xgb_model"] = args.xgb_model or previous.get("xgb_model")
    if args.label:
        study["labels"][args.label] = {"model": args.model, "xgb_model": args.xgb_model}
    for op in ops:
        for name, run_name in zip(strategies, runs):
            for seed in seeds:
                db = os.path.join(args.out, f"{run_name}-s{seed}.db")
                command = tune_command(glimpse_binary(args), op, name, seed, db, args)
                print(f"{op} {run_name} seed {seed}", flush=True)
                done = subprocess.run(command, capture_output=True, text=True)
                # What the run said on standard error (the machine warning, the model each task
                # chose), beside its database.
                with open(os.path.join(args.out, f"{run_name}-s{seed}.log"), "a") as log:
                    log.write(f"# {op}\n{done.stderr}")
                if done.returncode != 0:
                    sys.exit(f"study.py: {' '.join(command)} failed:\n{done.stderr}")
                study["canonical"][op] = json.loads(done.stdout)["tasks"][0]["op"]
                with open(os.path.join(args.out, "study.json"), "w") as f:
                    json.dump(study, f, indent=2)


def tune_command(glimpse, op, strategy, seed, db, args):
    """The `glimpse tune` command line of one run."""
    command = [glimpse, "tune", "--target", "cpu", "--op", op, "--seed", str(seed), "--db", db,
               "--progress", "quiet", "--json", "--threads", str(args.threads)]
    command += STRATEGIES[strategy](args)
    if strategy not in FIXED_BUDGET:
        command += ["--budget", str(args.budget)]
    return command


def exported(glimpse, db):
    """The items of `glimpse db export` of one database, in commit order."""
    out = subprocess.run([glimpse, "db", "export", "--db", db], capture_output=True, text=True,
                         check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def run_items(glimpse, out, name, seed):
    """The exported items of run (name, seed) of a study folder, in commit order: its database,
    or where there is none its gzipped export; None where the run has neither."""
    db = os.path.join(out, f"{name}-s{seed}.db")
    if os.path.exists(db):
        return exported(glimpse, db)
    export = os.path.join(out, f"{name}-s{seed}.jsonl.gz")
    if os.path.exists(export):
        with gzip.open(export, "rt") as f:
            return [json.loads(line) for line in f if line.strip()]
    return None


def strategy_runs(glimpse, folders, name, seeds):
    """{seed: (incumbents(items), records_by_op(items))} of a strategy's runs, each read once from
    the first of `folders` that has it; seeds with no run are left out."""
    runs = {}
    for seed in seeds:
        for folder in folders:
            items = run_items(glimpse, folder, name, seed)
            if items is not None:
                runs[seed] = (incumbents(items), records_by_op(items))
                break
    return runs


def study_runs(args, only=None):
    """The study of folder args.out (its study.json) and {(strategy, seed): exported items} of
    every run of it (of the strategies in `only`, when given) that has a database or an export."""
    with open(os.path.join(args.out, "study.json")) as f:
        study = json.load(f)
    glimpse = glimpse_binary(args)
    runs = {}
    for name in only or study["strategies"]:
        for seed in study["seeds"]:
            items = run_items(glimpse, args.out, name, seed)
            if items is not None:
                runs[(name, seed)] = items
    return study, runs


def records_by_op(items):
    """{op text: [time_s or inf, …] in commit order} of one run's exported items."""
    ops, times = {}, {}
    for item in items:
        if item["type"] == "workload":
            ops[item["key"]] = item["name"]  # the operator's canonical text
        elif item["type"] == "record":
            time = item["time_s"] if item["status"] == "ok" and item["time_s"] else math.inf
            times.setdefault(item["workload_key"], []).append(time)
    return {ops[key]: series for key, series in times.items()}


def corpus_best(path):
    best = {}
    with gzip.open(path, "rt") as f:
        next(f)  # header
        for line in f:
            record = json.loads(line)
            if record["status"] == "ok" and record["time_s"]:
                best[record["op"]] = min(best.get(record["op"], math.inf), record["time_s"])
    return best


def summarize(args):
    study, items_of = study_runs(args)
    runs = {run: records_by_op(items) for run, items in items_of.items()}  # → {op: series}
    best = corpus_best(args.corpus) if args.corpus else {}
    for series_of in runs.values():
        for op, series in series_of.items():
            best[op] = min(best.get(op, math.inf), min(series))

    def qualities(name, seed, key):
        """The run's quality after each of its measurements: best known / best so far."""
        so_far, running = [], math.inf
        for time in runs.get((name, seed), {}).get(key) or []:
            running = min(running, time)
            so_far.append(best[key] / running if math.isfinite(running) else 0.0)
        return so_far

    report = quality_report(study, qualities, {op: best.get(study["canonical"].get(op, op))
                                               for op in study["ops"]})
    write_report(report, args)


def quality_report(study, qualities, best_known):
    """Per operator and strategy (medians over seeds): measurements to each level and the quality
    at each checkpoint, from qualities(name, seed, canonical op) → [quality after measurement
    1, 2, …] (empty where the run did not tune the operator); and the summary over operators."""
    budget = study["budget"]
    report = {"study": study, "operators": {}}
    for op in study["ops"]:
        key = study["canonical"].get(op, op)
        rows = {}
        for name in study["strategies"]:
            to_level = {level: [] for level in LEVELS}
            at = {n: [] for n in CHECKPOINTS}
            for seed in study["seeds"]:
                so_far = qualities(name, seed, key)
                if not so_far:
                    continue
                for level in LEVELS:
                    hit = next((i + 1 for i, q in enumerate(so_far) if q >= level),
                               run_budget(name, budget) + 1)
                    to_level[level].append(hit)
                for n in CHECKPOINTS:
                    if n <= len(so_far):
                        at[n].append(so_far[n - 1])
            rows[name] = {
                "to_level": {f"{level:.2f}": statistics.median(v) if v else None
                             for level, v in to_level.items()},
                "quality_at": {str(n): statistics.median(v) if v else None for n, v in at.items()},
            }
        report["operators"][op] = {"best_known_s": best_known.get(op), "strategies": rows}
    report["summary"] = summarize_over_operators(report, budget)
    return report


def write_report(report, args):
    budget = report["study"]["budget"]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
    print_table(report, budget)
    print()
    print_summary(report["summary"], budget)


def incumbents(items):
    """{op text: [(measurement number, config JSON text)]} of one run's exported items: each
    configuration that became the run's best so far by its own measurements, and when."""
    ops, chosen = {}, {}
    measured, fastest = collections.Counter(), {}  # per workload: records so far, best time
    for item in items:
        if item["type"] == "workload":
            ops[item["key"]] = item["name"]
        elif item["type"] == "record":
            key = item["workload_key"]
            chosen.setdefault(key, [])
            measured[key] += 1
            if item["status"] == "ok" and item["time_s"] and \
                    item["time_s"] < fastest.get(key, math.inf):
                fastest[key] = item["time_s"]
                chosen[key].append((measured[key], json.dumps(item["config"], sort_keys=True)))
    return {ops[key]: series for key, series in chosen.items()}


def read_recheck(recheck_json):
    """A `recheck --json` file's whole report (gzip or plain)."""
    opener = gzip.open if recheck_json.endswith(".gz") else open
    with opener(recheck_json, "rt") as f:
        return json.load(f)


def load_recheck(out, recheck_json, key="retimed"):
    """A study's study.json (in `out`) and a `recheck --json` file's re-timed times ({op:
    {config: s}}; gzip or plain) — or with key="passes" every pass's times (None where the file
    has none) —, for the scripts that read a re-timing back."""
    report = read_recheck(recheck_json)
    part = report["retimed"] if key == "retimed" else report.get(key)
    with open(os.path.join(out, "study.json")) as f:
        return json.load(f), part


def retimed_qualities(series, length, times, choose=None, best=None):
    """A run's quality on one operator after each of its `length` measurements, by re-timed
    times: `best` (by default the fastest of `times`, {config: re-timed s}) over the re-timed time
    of the configuration chosen from its incumbents so far (`series`, incumbents()'s [(n,
    config)]) — by default its own latest; `choose(configs so far) → config` picks otherwise. 0
    before its first ok measurement, or where the chosen configuration's re-timing failed."""
    if best is None:
        best = min(times.values())
    out, so_far, next_change = [], [], 0
    for n in range(1, length + 1):
        while next_change < len(series) and series[next_change][0] == n:
            so_far.append(series[next_change][1])
            next_change += 1
        current = (choose(so_far) if choose else so_far[-1]) if so_far else None
        time_s = times.get(current) if current else None
        out.append(best / time_s if time_s else 0.0)
    return out


def recheck(args):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from cpu_remeasure_runs import fastest_pass, timed_in_passes  # noqa: E402 (bench/)
    if args.passes < 1:
        sys.exit(f"study.py recheck: --passes {args.passes}: at least 1")
    if not os.access(args.bench, os.X_OK):
        sys.exit(f"study.py recheck: --bench {args.bench} is not an executable "
                 "(build bench_cpu_templates: scripts/build.sh ci)")
    only = args.only.split(",") if args.only else None
    study, items_of = study_runs(args, only)  # the runs left out are not even exported
    if only:
        unknown = [name for name in only if name not in study["strategies"]]
        if unknown:
            sys.exit(f"study.py recheck: --only {','.join(unknown)}: not a strategy of "
                     f"{args.out}/study.json ({', '.join(study['strategies'])})")
        study = dict(study, strategies=only)
    chosen = {run: incumbents(items) for run, items in items_of.items()}  # → {op: [(n, config)]}
    lengths = {run: {op: len(series) for op, series in records_by_op(items).items()}
               for run, items in items_of.items()}  # → {op: measurements}
    if not chosen:
        sys.exit(f"study.py recheck: no run's database or export in {args.out}")
    pool = {}  # op → configurations of another re-timing that join the best known's candidates
    if args.best_from:
        if args.best_top < 1:
            sys.exit(f"study.py recheck: --best-top {args.best_top}: at least 1")
        try:
            earlier = read_recheck(args.best_from)["retimed"]
        except (OSError, ValueError, KeyError) as error:
            sys.exit(f"study.py recheck: --best-from {args.best_from}: not a re-timing's "
                     f"--json file ({error})")
        pool = {key: sorted(times, key=times.get)[:args.best_top]
                for key, times in earlier.items()}
    retimed = {}  # op → {config: fastest pass}
    passes = {}  # op → {config: [time or None per pass]}, for crossfit.py --split
    for op in study["ops"]:
        key = study["canonical"].get(op, op)
        configs = sorted({config for runs in chosen.values() for _, config in runs.get(key, [])}
                         | set(pool.get(key, [])))
        if not configs:
            continue
        samples = timed_in_passes(args.bench, [(key, config) for config in configs],
                                  args.passes, args.threads)
        retimed[key] = {config: time_s for (_, config), time_s in fastest_pass(samples).items()
                        if time_s is not None}
        passes[key] = {config: times for (_, config), times in samples.items()}
        print(f"study.py recheck: {key}: {len(configs)} configurations, {args.passes} passes",
              file=sys.stderr, flush=True)
    best = {key: min(times.values()) for key, times in retimed.items() if times}

    def qualities(name, seed, key):
        series = chosen.get((name, seed), {}).get(key)
        if not series or key not in best:
            return []
        return retimed_qualities(series, lengths[(name, seed)][key], retimed[key])

    report = quality_report(study, qualities, {op: best.get(study["canonical"].get(op, op))
                                               for op in study["ops"]})
    report["retimed"] = {key: dict(sorted(times.items(), key=lambda item: item[1]))
                         for key, times in retimed.items()}
    report["passes"] = passes
    report["recheck"] = {"passes": args.passes, "threads": args.threads, "bench": args.bench,
                         "best_from": args.best_from,
                         "best_top": args.best_top if args.best_from else None}
    write_report(report, args)


def run_budget(strategy, budget):
    """Measurements a run of the strategy makes: the hardware16 ones stop at 16 whatever
    --budget says."""
    return FIXED_BUDGET.get(base_strategy(strategy), budget)


def summarize_over_operators(report, budget):
    """Per strategy, medians over the operators it ran on (each operator's value is already the
    median over seeds); and per strategy, the median over operators of xgb's measurements to 95 %
    divided by the strategy's, over the operators where the strategy reached 95 % (xgb's count is
    its budget + 1 where it never got there, so such a ratio is a lower bound)."""
    summary = {}
    strategies = report["study"]["strategies"]
    for name in strategies:
        rows = [entry["strategies"].get(name) for entry in report["operators"].values()]
        rows = [row for row in rows if row and row["to_level"]["0.95"] is not None]
        if not rows:
            continue
        median = lambda values: statistics.median(values) if values else None
        summary[name] = {
            "operators": len(rows),
            "to_level": {f"{level:.2f}": median([row["to_level"][f"{level:.2f}"] for row in rows])
                         for level in LEVELS},
            "quality_at": {str(n): median([row["quality_at"][str(n)] for row in rows
                                           if row["quality_at"][str(n)] is not None])
                           for n in CHECKPOINTS},
        }
        reached = [row for row in rows if row["to_level"]["0.95"] <= run_budget(name, budget)]
        summary[name]["reached_95"] = len(reached)
        if name != "xgb" and "xgb" in strategies:
            # Only the operators where this strategy reached 95 %: elsewhere there is no ratio.
            ratios = []
            for entry in report["operators"].values():
                mine, cold = entry["strategies"].get(name), entry["strategies"].get("xgb")
                if (mine and cold and mine["to_level"]["0.95"] is not None and
                        cold["to_level"]["0.95"] is not None and
                        mine["to_level"]["0.95"] <= run_budget(name, budget)):
                    ratios.append(cold["to_level"]["0.95"] / mine["to_level"]["0.95"])
            summary[name]["xgb_to_95_ratio"] = median(ratios)
    return summary


def print_summary(summary, budget):
    header = ("| strategy | operators | reached 95 % | to 90 % | to 95 % | to 99 % | q@8 | q@16 "
              "| q@32 | q@64 | xgb ÷ it, to 95 % |")
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    fmt_n = lambda n, b: "—" if n is None else (f"> {b}" if n > b else f"{n:g}")
    fmt_q = lambda q: "—" if q is None else f"{q:.3f}"
    for name, row in summary.items():
        levels = [fmt_n(row["to_level"][f"{level:.2f}"], run_budget(name, budget))
                  for level in LEVELS]
        qualities = [fmt_q(row["quality_at"][str(n)]) for n in CHECKPOINTS]
        ratio = row.get("xgb_to_95_ratio")
        print(f"| {name} | {row['operators']} | {row['reached_95']} | " +
              " | ".join(levels + qualities) +
              f" | {'—' if ratio is None else f'{ratio:.2f}'} |")


def print_table(report, budget):
    header = "| operator | strategy | to 90 % | to 95 % | to 99 % | q@8 | q@16 | q@32 | q@64 |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    fmt_n = lambda n, b: "—" if n is None else (f"> {b}" if n > b else f"{n:g}")
    fmt_q = lambda q: "—" if q is None else f"{q:.3f}"
    for op, entry in report["operators"].items():
        for name, row in entry["strategies"].items():
            levels = [fmt_n(row["to_level"][f"{level:.2f}"], run_budget(name, budget))
                  for level in LEVELS]
            qualities = [fmt_q(row["quality_at"][str(n)]) for n in CHECKPOINTS]
            print(f"| `{op}` | {name} | " + " | ".join(levels + qualities) + " |")


def drift(args):
    glimpse = glimpse_binary(args)
    measured = collections.defaultdict(list)  # (workload, config hash) → [(started_at, time_s)]
    for db in sorted(glob.glob(os.path.join(args.out, "*.db"))):
        for item in exported(glimpse, db):
            if item["type"] == "record" and item["status"] == "ok" and item["time_s"]:
                key = (item["workload_key"], item["config_hash"])
                measured[key].append((item["started_at"], item["time_s"]))
    ratios = collections.defaultdict(list)  # "HH:MM" → [time / its configuration's median]
    for series in measured.values():
        if len(series) < 3:
            continue
        median = statistics.median(time for _, time in series)
        for started, time in series:
            when = datetime.datetime.fromtimestamp(started, datetime.timezone.utc)
            ratios[f"{when.hour:02d}:{when.minute // 15 * 15:02d}"].append(time / median)
    for quarter in sorted(ratios):
        values = sorted(ratios[quarter])
        print(f"{quarter} {len(values)} median ratio {statistics.median(values):.3f}  "
              f"p10 {values[len(values) // 10]:.3f}  p90 {values[9 * len(values) // 10]:.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="tune the operators with every strategy and seed")
    r.add_argument("--ops", required=True, help="operators, one per line")
    r.add_argument("--model", help="learned performance model (glimpse train perf-model)")
    r.add_argument("--xgb-model",
                   help="XGBoost on loop features (glimpse train perf-model --model xgb): the "
                        "--cost-model of xgb-transfer and hardware16-transfer; needed only with "
                        "them")
    r.add_argument("--out", required=True, help="folder for the databases and study.json")
    r.add_argument("--budget", type=int, default=64, help="measurements per run")
    r.add_argument("--seeds", default="1,2,3")
    r.add_argument("--strategies",
                   help="comma list (default: all; those on the XGBoost model only with "
                        "--xgb-model)")
    r.add_argument("--threads", type=int, default=0, help="glimpse tune --threads")
    r.add_argument("--label", help="run each strategy as STRATEGY@LABEL: the same strategies on "
                                   "other model files, beside the unlabelled runs")
    r.add_argument("--glimpse", help="the glimpse binary (default $GLIMPSE or build/ci/glimpse)")
    s = sub.add_parser("summarize", help="tables of a finished (or partial) run")
    s.add_argument("--out", required=True)
    s.add_argument("--corpus", help="corpus export whose records count towards the best known")
    s.add_argument("--json", help="also write the report as JSON")
    s.add_argument("--glimpse")
    d = sub.add_parser("drift", help="whether the machine changed speed during the study")
    d.add_argument("--out", required=True)
    d.add_argument("--glimpse")
    c = sub.add_parser("recheck", help="re-time every run's incumbents in one sitting and "
                                       "report the runs' quality by those times")
    c.add_argument("--out", required=True)
    # 8, not the 3 of the sittings before 2026-12-07 (their scripts pass --passes 3): with 3 the
    # same runs read 0.85–0.99 by which 3 of 8 passes were drawn (perf_tuning.md, "How many
    # passes a re-timing needs").
    c.add_argument("--passes", type=int, default=8, help="passes over each operator's "
                                                           "configurations (fastest counts)")
    c.add_argument("--bench", default="build/ci/bench/bench_cpu_templates")
    c.add_argument("--threads", type=int, default=0, help="bench_cpu_templates --threads")
    c.add_argument("--json", help="also write the report, with every re-timed time, as JSON")
    c.add_argument("--only", help="comma-separated strategies: re-time only their runs' "
                   "incumbents (and score only them)")
    c.add_argument("--best-from", metavar="RECHECK_JSON",
                   help="another re-timing's --json file of the same operators (gzip or plain): "
                   "its --best-top fastest configurations of each are re-timed too and count "
                   "towards the best known (a larger study's best, for a small one)")
    c.add_argument("--best-top", type=int, default=8)
    c.add_argument("--glimpse")
    args = parser.parse_args()
    {"run": run, "summarize": summarize, "drift": drift, "recheck": recheck}[args.command](args)


if __name__ == "__main__":
    main()
