#!/usr/bin/env python3
"""A study's runs scored against a best known configuration chosen in one re-timing and timed in
another (cross-fitted), beside each re-timing's own score.

Within one re-timing the best known time is the fastest of every configuration the runs found,
each timed once more with noise. The fastest of many near-equal noisy times lies below what any
one of those configurations takes on average (the winner's curse), so a run that found the best
configuration still reads below 1, by as much as the noise and the number of near-equal rivals
make it. Choosing the best configuration by re-timing A and taking its time, and the runs', from
re-timing B removes that bias: a run holding the best configuration reads 1 on average, one whose
configuration is 5 % slower about 0.95. Both directions (A → B, B → A) are scored and averaged.

usage: crossfit.py STUDY_DIR STRATEGY [STRATEGY ...] (--retimings A B | --split RECHECK)
                   [--estimator fastest|median] [--at N] [--level 0.95] [--runs-from DIR]
                   [--json FILE] [--subsets K]
STUDY_DIR: the study's databases or exports and study.json. --retimings: two `study.py recheck
--json` files of the same runs (gzip or plain), A and B. --split: one such file that kept every
pass's times (recheck since 2026-12-07), A its odd passes and B its even ones, each configuration
at its fastest pass of the half — two halves of one sitting, so that the host's state between
sittings does not enter the score. Per operator it prints the ceiling of a single re-timing's
score (what a run holding A's best configuration reads in B by B's own fastest), and per strategy
the median over seeds of q@N by A alone, by B alone and cross-fitted, then the measurements to
--level the same three ways.

--subsets K (with --split) asks instead what a re-timing of only K passes would have read: q@N,
median over operators, by the fastest pass, over every K of the file's passes. Where the host has
fast spells that some passes catch and others miss, a re-timing of few passes lets whichever
configuration caught one set the best known, and its reading moves with that luck."""
import argparse
import itertools
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import study as S  # noqa: E402


def chosen_best(select, evaluate):
    """The configuration fastest by `select` among those timed in both ({config: s} each) and its
    time by `evaluate`; None where the two share no configuration."""
    shared = [config for config in select if config in evaluate]
    if not shared:
        return None
    config = min(shared, key=lambda c: select[c])
    return config, evaluate[config]


def single_retiming_ceiling(select, evaluate):
    """What a run holding the configuration `select` calls best scores by `evaluate`'s own
    fastest: below 1 by the winner's curse of one re-timing (1 where none shared)."""
    best = chosen_best(select, evaluate)
    if best is None:
        return 1.0
    shared = [evaluate[c] for c in select if c in evaluate]
    return min(shared) / best[1]


def run_curve(series, length, select, evaluate):
    """A run's quality after each of its `length` measurements (incumbents()'s series) with the
    best configuration chosen by `select` and every time taken from `evaluate`; None where the
    re-timings share no configuration."""
    best = chosen_best(select, evaluate)
    if best is None:
        return None
    return S.retimed_qualities(series, length, evaluate, best=best[1])


def measurements_to(curve, level):
    """The first measurement after which the quality reaches `level`; len(curve) + 1 if none."""
    return next((i + 1 for i, q in enumerate(curve) if q >= level), len(curve) + 1)


KINDS = ("a", "b", "crossfit")


def operator_scores(runs, key, at, times_a, times_b, level=0.95):
    """For one operator (canonical `key`) and one strategy's runs ({seed: (incumbents, records by
    op)}) of at least `at` measurements: {"a", "b", "crossfit"} → [q@at per seed], and under
    "to_level" the same kinds → [measurements to `level` per seed]. "a" and "b" are each
    re-timing's own score (best = its fastest); "crossfit" the mean of A → B and B → A."""
    scores = {kind: [] for kind in KINDS}
    scores["to_level"] = {kind: [] for kind in KINDS}
    for incumbents, records in runs.values():
        series, length = incumbents.get(key, []), len(records.get(key, []))
        if length < at or not series:
            continue
        curves = {"a": S.retimed_qualities(series, length, times_a),
                  "b": S.retimed_qualities(series, length, times_b)}
        a_to_b = run_curve(series, length, times_a, times_b)
        b_to_a = run_curve(series, length, times_b, times_a)
        if a_to_b is not None and b_to_a is not None:
            curves["crossfit"] = [(x + y) / 2 for x, y in zip(a_to_b, b_to_a)]
        for kind, curve in curves.items():
            scores[kind].append(curve[at - 1])
            scores["to_level"][kind].append(measurements_to(curve, level))
    return scores


ESTIMATORS = {"fastest": min, "median": statistics.median}


def split_passes(passes, estimator="fastest"):
    """{op: {config: [time or None per pass]}} (a recheck's "passes") → two {op: {config: s}}: the
    odd passes (1st, 3rd, …) and the even ones, each configuration at its fastest pass of the
    half (as a re-timing scores it) or its median; a configuration is left out of a half in which
    every pass failed."""
    reduce = ESTIMATORS[estimator]
    halves = ({}, {})
    for key, configs in passes.items():
        for half, start in zip(halves, (0, 1)):
            times = {}
            for config, samples in configs.items():
                ok = [t for t in samples[start::2] if t is not None]
                if ok:
                    times[config] = reduce(ok)
            half[key] = times
    return halves


def fastest_of(passes, chosen):
    """{op: {config: its fastest time over the passes numbered in `chosen`}} (configurations that
    failed on all of them left out): a re-timing of `len(chosen)` passes."""
    out = {}
    for key, configs in passes.items():
        out[key] = {}
        for config, samples in configs.items():
            ok = [samples[i] for i in chosen if samples[i] is not None]
            if ok:
                out[key][config] = min(ok)
    return out


def subset_scores(study, passes, runs_of, at, k):
    """{strategy: [q@at, median over operators of the median over seeds, for each subset of k of
    the re-timing's passes]}: what a re-timing of k passes would have read, over every way of
    drawing them from these."""
    count = min(len(t) for c in passes.values() for t in c.values())
    out = {name: [] for name in runs_of}
    for chosen in itertools.combinations(range(count), k):
        retimed = fastest_of(passes, chosen)
        for name, runs in runs_of.items():
            per_op = []
            for op in study["ops"]:
                key = study["canonical"].get(op, op)
                if not retimed.get(key):
                    continue
                seeds = []
                for incumbents, records in runs.values():
                    series, length = incumbents.get(key, []), len(records.get(key, []))
                    if length >= at and series:
                        seeds.append(S.retimed_qualities(series, length, retimed[key])[at - 1])
                if seeds:
                    per_op.append(statistics.median(seeds))
            if per_op:
                out[name].append(statistics.median(per_op))
    return out


def report(study, retimed_a, retimed_b, runs_of, at, level=0.95):
    """{"operators": {op: {"ceiling_a_to_b", "ceiling_b_to_a", "strategies": {name: {"a", "b",
    "crossfit": q@at, "to_level": {same kinds: measurements to `level`}}, each the median over
    seeds}}}, "medians": {name: the same, medians over operators}}."""
    out = {"at": at, "level": level, "operators": {}, "medians": {}}
    per_strategy = {name: {kind: [] for kind in KINDS} for name in runs_of}
    per_strategy_to = {name: {kind: [] for kind in KINDS} for name in runs_of}
    median = lambda v: statistics.median(v) if v else None
    for op in study["ops"]:
        key = study["canonical"].get(op, op)
        times_a, times_b = retimed_a.get(key), retimed_b.get(key)
        if not times_a or not times_b:
            continue
        row = {"ceiling_a_to_b": single_retiming_ceiling(times_a, times_b),
               "ceiling_b_to_a": single_retiming_ceiling(times_b, times_a), "strategies": {}}
        for name, runs in runs_of.items():
            scores = operator_scores(runs, key, at, times_a, times_b, level)
            medians = {kind: median(scores[kind]) for kind in KINDS}
            medians["to_level"] = {kind: median(scores["to_level"][kind]) for kind in KINDS}
            row["strategies"][name] = medians
            for kind in KINDS:
                if medians[kind] is not None:
                    per_strategy[name][kind].append(medians[kind])
                    per_strategy_to[name][kind].append(medians["to_level"][kind])
        out["operators"][op] = row
    for name in runs_of:
        out["medians"][name] = {kind: median(per_strategy[name][kind]) for kind in KINDS}
        out["medians"][name]["to_level"] = {kind: median(per_strategy_to[name][kind])
                                            for kind in KINDS}
    return out


def cell(value):
    return "—" if value is None else f"{value:.3f}"


def print_report(result, names):
    at = result["at"]
    header = "| operator | ceiling A→B / B→A |"
    rule = "|---|---:|"
    for name in names:
        header += f" {name}: q@{at} A / B | cross-fitted |"
        rule += "---:|---:|"
    print(header)
    print(rule)
    for op, row in result["operators"].items():
        line = f"| `{op.split(',bias')[0]}` | {cell(row['ceiling_a_to_b'])} / " \
               f"{cell(row['ceiling_b_to_a'])} |"
        for name in names:
            m = row["strategies"][name]
            line += f" {cell(m['a'])} / {cell(m['b'])} | {cell(m['crossfit'])} |"
        print(line)
    ceilings = [(row["ceiling_a_to_b"] + row["ceiling_b_to_a"]) / 2
                for row in result["operators"].values()]
    line = f"| **median over operators** | {cell(statistics.median(ceilings))} |" \
        if ceilings else "| **median over operators** | — |"
    for name in names:
        m = result["medians"][name]
        line += f" **{cell(m['a'])} / {cell(m['b'])}** | **{cell(m['crossfit'])}** |"
    print(line)
    print()
    print(f"Measurements to {result['level']:.0%} of the best known (median over seeds; a run "
          "that never got there counts as its length + 1):")
    print()
    print("| operator |" + "".join(f" {name}: A / B | cross-fitted |" for name in names))
    print("|---|" + "---:|---:|" * len(names))
    count = lambda value: "—" if value is None else f"{value:g}"
    rows = list(result["operators"].items()) + [("**median over operators**", result["medians"])]
    for op, row in rows:
        label = op if op.startswith("**") else f"`{op.split(',bias')[0]}`"
        line = f"| {label} |"
        for name in names:
            to = (row["strategies"][name] if "strategies" in row else row[name])["to_level"]
            line += f" {count(to['a'])} / {count(to['b'])} | {count(to['crossfit'])} |"
        print(line)


def print_subsets(scores, k, count, at):
    print(f"q@{at}, median over operators, by a re-timing of {k} of the {count} passes "
          f"(every such subset: {math.comb(count, k)}):")
    print()
    print("| strategy | lowest | 10th percentile | median | 90th percentile | highest | "
          "subsets ≥ 0.95 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, values in scores.items():
        if not values:
            continue
        values = sorted(values)
        pick = lambda q: values[min(len(values) - 1, int(q * len(values)))]
        above = sum(v >= 0.95 for v in values)
        print(f"| {name} | {values[0]:.3f} | {pick(0.1):.3f} | {statistics.median(values):.3f} "
              f"| {pick(0.9):.3f} | {values[-1]:.3f} | {above} of {len(values)} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("strategies", nargs="+")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--retimings", nargs=2, metavar=("A", "B"))
    source.add_argument("--split", metavar="RECHECK")
    parser.add_argument("--estimator", choices=sorted(ESTIMATORS), default="fastest",
                        help="with --split: a configuration's time in a half, its fastest pass "
                        "(default, as study.py recheck) or the median of its passes")
    parser.add_argument("--at", type=int, default=16)
    parser.add_argument("--level", type=float, default=0.95,
                        help="the quality whose measurements to reach are counted")
    parser.add_argument("--runs-from", action="append", default=[])
    parser.add_argument("--json", help="also write the scores as JSON")
    parser.add_argument("--subsets", type=int, metavar="K",
                        help="with --split: instead, q@N (median over operators) of a re-timing "
                        "of K passes, over every K of the file's passes, by the fastest pass")
    args = parser.parse_args()
    if args.at < 1:
        parser.error(f"--at {args.at}: at least 1")
    if args.retimings and (args.estimator != "fastest" or args.subsets):
        parser.error("--estimator and --subsets: only with --split (a re-timing file keeps each "
                     "configuration's fastest pass alone)")
    if args.retimings:
        study, retimed_a = S.load_recheck(args.out, args.retimings[0])
        _, retimed_b = S.load_recheck(args.out, args.retimings[1])
    else:
        study, passes = S.load_recheck(args.out, args.split, key="passes")
        count = min((len(t) for c in (passes or {}).values() for t in c.values()), default=0)
        if count < 2:
            parser.error(f"--split {args.split}: no times per pass, or fewer than 2 passes "
                         "(re-time with study.py recheck --passes 4 or more)")
        if args.subsets is not None and not 1 <= args.subsets <= count:
            parser.error(f"--subsets {args.subsets}: between 1 and the {count} passes")
    glimpse = os.environ.get("GLIMPSE", "build/ci/glimpse")
    folders = [args.out] + args.runs_from
    runs_of = {}
    for name in args.strategies:
        runs_of[name] = S.strategy_runs(glimpse, folders, name, study["seeds"])
        if not runs_of[name]:
            parser.error(f"strategy {name}: no run of it in {', '.join(folders)}")
    if args.subsets:
        print_subsets(subset_scores(study, passes, runs_of, args.at, args.subsets),
                      args.subsets, count, args.at)
        return
    if not args.retimings:
        retimed_a, retimed_b = split_passes(passes, args.estimator)
    result = report(study, retimed_a, retimed_b, runs_of, args.at, args.level)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    print_report(result, args.strategies)

if __name__ == "__main__":
    main()
