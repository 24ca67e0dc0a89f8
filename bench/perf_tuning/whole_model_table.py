#!/usr/bin/env python3
"""Summarises whole-model tuning runs (`glimpse tune --model …`) for bench/results.

For each run: the summed latency of the tuned operators (Σ weight × the operator's best time, as
`glimpse tune` prints it) after the first k measurements of every task, and the median quality at
the end (per operator, the best time any of the runs found over this run's best).

With --per-task, also one row per operator: each run's best time and how many measurements it
took, and the Σ weight × best over the operators every run measured (so that a run still under
way, or stopped part-way, compares on the tasks it finished).

Usage:
  whole_model_table.py --run NAME=TUNE_LOG,EXPORT [--run …] [--at 1,4,8,16,64] [--per-task]
TUNE_LOG is the run's output (its 'task i/n: OPERATOR (weight W, …' lines give the weights);
EXPORT is `glimpse db export --db DB` of the run's database (JSON lines, .gz allowed).
"""
import argparse
import gzip
import json
import re
import statistics
import sys

TASK_LINE = re.compile(r"^task \d+/\d+: (\S+) \(weight (\d+)")


def read_weights(log_path):
    weights = {}
    with open(log_path) as log:
        for line in log:
            match = TASK_LINE.match(line)
            if match:
                weights[match.group(1)] = int(match.group(2))
    if not weights:
        sys.exit(f"{log_path}: no 'task i/n: OPERATOR (weight W' lines — is it a glimpse tune log?")
    return weights


def read_times(export_path):
    """Per operator name, its measurements in the order they started: time (s) or None (failed)."""
    opener = gzip.open if export_path.endswith(".gz") else open
    names, records = {}, []
    with opener(export_path, "rt") as export:
        for line in export:
            row = json.loads(line)
            if row["type"] == "workload":
                names[row["key"]] = row["name"]
            elif row["type"] == "record":
                records.append(row)
    records.sort(key=lambda r: float(r["started_at"]))
    times = {}
    for r in records:
        time = float(r["time_s"]) if r["status"] == "ok" else None
        times.setdefault(names[r["workload_key"]], []).append(time)
    return times


def best(times):
    ok = [t for t in times if t is not None]
    return min(ok) if ok else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="append", required=True, help="NAME=TUNE_LOG,EXPORT")
    parser.add_argument("--at", default="1,4,8,16,64", help="measurements per task")
    parser.add_argument("--per-task", action="store_true",
                        help="also each operator's best time per run, and Σ over the common ones")
    args = parser.parse_args()
    at = [int(k) for k in args.at.split(",")]
    runs = {}
    for spec in args.run:
        name, _, paths = spec.partition("=")
        log_path, _, export_path = paths.partition(",")
        if not export_path:
            sys.exit(f"--run {spec}: expected NAME=TUNE_LOG,EXPORT")
        runs[name] = (read_weights(log_path), read_times(export_path))
    best_known = {}
    for weights, times in runs.values():
        for op, op_times in times.items():
            b = best(op_times)
            if b is not None and op in weights:
                best_known[op] = min(best_known.get(op, b), b)
    print("| run | tasks | Σ after " + " / ".join(map(str, at)) + " per task (ms) | median quality |")
    print("|---|---:|---|---:|")
    for name, (weights, times) in runs.items():
        sums = []
        for k in at:
            if any(len(times.get(op, [])) < k for op in weights):
                sums.append("—")
                continue
            total = 0.0
            for op, w in weights.items():
                b = best(times[op][:k])
                total = float("inf") if b is None else total + w * b
            sums.append(f"{total * 1e3:.2f}")
        quality = [best_known[op] / best(times[op]) for op in weights
                   if op in times and best(times[op]) is not None]
        missing = [op for op in weights if op not in times]
        note = f" ({len(missing)} tasks without records)" if missing else ""
        print(f"| {name} | {len(weights)}{note} | {' / '.join(sums)} | "
              f"{statistics.median(quality):.2f} |")
    if args.per_task:
        print()
        print_per_task(runs)


def print_per_task(runs):
    """One row per operator (the first run's order and weights): each run's best in ms and its
    measurement count; then Σ weight × best over the operators every run has a best for."""
    names = list(runs)
    weights = runs[names[0]][0]
    print("| operator | weight | " + " | ".join(f"{n}: best ms (measured)" for n in names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    # Each operator's best per run, once: None where a run has no ok measurement of it.
    bests = {op: [best(runs[n][1].get(op, [])) for n in names] for op in weights}
    for op, w in weights.items():
        cells = ["—" if b is None else f"{b * 1e3:.3f} ({len(runs[n][1].get(op, []))})"
                 for n, b in zip(names, bests[op])]
        print(f"| {op} | {w} | " + " | ".join(cells) + " |")
    common = [op for op in weights if None not in bests[op]]
    sums = [sum(weights[op] * bests[op][i] for op in common) * 1e3 for i in range(len(names))]
    print(f"| Σ over the {len(common)} operators every run measured | | "
          + " | ".join(f"{s:.2f}" for s in sums) + " |")


if __name__ == "__main__":
    main()
