#!/usr/bin/env python3
"""Summarises whole-model tuning runs (`glimpse tune --model …`) for bench/results.

For each run: the summed latency of the tuned operators (Σ weight × the operator's best time, as
`glimpse tune` prints it) after the first k measurements of every task, and the median quality at
the end (per operator, the best time any of the runs found over this run's best).

Usage:
  whole_model_table.py --run NAME=TUNE_LOG,EXPORT [--run …] [--at 1,4,8,16,64]
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


if __name__ == "__main__":
    main()
