"""Markdown tables from the runs of kernel_tuner_strategies.py and optuna_samplers.py.

Per space and strategy: the median number of measurements (trials) to 95 % of the optimum over the
seeds — a run that never got there counts as more than the budget (">B"), so a median is only a
number when at least half the runs arrived — and how many runs arrived. Then, per space, glimpse's
median against the best of the others.

Usage: .venv/bin/python bench/python/strategies_report.py RESULTS.json [--key strategy|sampler]
"""

import argparse
import json
import math
from collections import defaultdict


def median_to(values, budget):
    ordered = sorted(v if v is not None else math.inf for v in values)
    middle = ordered[(len(ordered) - 1) // 2], ordered[len(ordered) // 2]
    if math.inf in middle:
        return None
    return (middle[0] + middle[1]) / 2


def fmt(value, budget):
    return f">{budget}" if value is None else f"{value:g}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("--goal", default="to95", choices=["to95", "to99"])
    parser.add_argument("--ours", default="glimpse")
    args = parser.parse_args()
    data = json.load(open(args.results))
    budget = data.get("budget") or data.get("trials")
    key = "strategy" if "strategy" in data["runs"][0] else "sampler"
    table = defaultdict(lambda: defaultdict(list))
    names = []
    for run in data["runs"]:
        space = f"{run['kernel']} / {run['gpu']}"
        table[space][run[key]].append(run[args.goal])
        if run[key] not in names:
            names.append(run[key])
    print(f"| {key} | " + " | ".join(table) + " |")
    print("|---|" + "---:|" * len(table))
    for name in names:
        cells = []
        for space in table:
            runs = table[space][name]
            arrived = sum(v is not None for v in runs)
            cells.append(f"{fmt(median_to(runs, budget), budget)} ({arrived}/{len(runs)})")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
    ours_other = [n for n in names if n.startswith(args.ours) and n != args.ours]
    print(f"| space | {args.ours} | best other (median) | ratio best other / {args.ours} |")
    print("|---|---:|---|---:|")
    for space in table:
        ours = median_to(table[space][args.ours], budget)
        others = [(median_to(v, budget), n) for n, v in table[space].items()
                  if n != args.ours and n not in ours_other]
        reached = [(m, n) for m, n in others if m is not None]
        best = min(reached) if reached else (None, "none arrives")
        ratio = "—"
        if ours is not None and best[0] is not None:
            ratio = f"{best[0] / ours:.2f}×"
        elif ours is not None:
            ratio = f">{budget / ours:.1f}×"
        print(f"| {space} | {fmt(ours, budget)} | {best[1]} ({fmt(best[0], budget)}) | {ratio} |")


if __name__ == "__main__":
    main()
