#!/usr/bin/env python3
"""Compare the per-step profiles of compiled models, step by step.

Reads the --json reports of `glimpse run DIR --profile` (one per build of a model, e.g. compiled
with --layout nchw and with --layout blocked) and prints one markdown table: each step's median in
every report, matched by the step's op name (the text before its first ": ", so a layer and its
blocked twin share a row; a reorder step is named by its tensor), the ratio of each report to the
first, and the totals per kind of step. Steps only one report has show "-" for the others.

  bench/compare_step_profiles.py nchw=run_nchw.json blocked=run_blocked.json [--threads 2]
"""
import argparse
import json
import sys


def load_steps(path, threads):
    with open(path) as f:
        report = json.load(f)
    for run in report["runs"]:
        if threads is not None and run["threads"] != threads:
            continue
        profile = run["glimpse"].get("profile")
        if profile is None:
            sys.exit(f"{path}: run at {run['threads']} thread(s) has no profile (glimpse run --profile)")
        steps = []
        for step in profile["steps"]:
            name = step["name"].split(": ", 1)[0]
            steps.append((name, step["kind"], step["median_s"], step["name"]))
        return run["threads"], run["glimpse"]["median_s"], steps
    sys.exit(f"{path}: no run at {threads} thread(s)")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reports", nargs="+", help="LABEL=FILE.json, the first is the reference")
    parser.add_argument("--threads", type=int, help="the thread count to compare (default: first run)")
    args = parser.parse_args()
    labels, profiles = [], []
    for item in args.reports:
        label, sep, path = item.partition("=")
        if not sep:
            sys.exit(f"'{item}': give LABEL=FILE.json")
        labels.append(label)
        profiles.append(load_steps(path, args.threads))

    # Rows in the first report's order, then steps only later reports have.
    order, kind_of, times = [], {}, {}
    for r, (_, _, steps) in enumerate(profiles):
        for name, kind, seconds, _ in steps:
            if name not in kind_of:
                order.append(name)
                kind_of[name] = kind
            times.setdefault(name, {})[r] = times.get(name, {}).get(r, 0.0) + seconds

    def ms(value):
        return "-" if value is None else f"{value * 1e3:.3f}"

    header = ["step", "kind"] + [f"{label} ms" for label in labels] + \
        [f"{label}/{labels[0]}" for label in labels[1:]]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name in order:
        row = [name, kind_of[name]] + [ms(times[name].get(r)) for r in range(len(labels))]
        base = times[name].get(0)
        for r in range(1, len(labels)):
            other = times[name].get(r)
            row.append(f"{other / base:.2f}" if base and other is not None else "-")
        print("| " + " | ".join(row) + " |")
    print()
    print("| totals | " + " | ".join(labels) + " |")
    print("|" + "---|" * (len(labels) + 1))
    for kind in ("kernel", "op", "reorder"):
        sums = [sum(s for _, k, s, _ in steps if k == kind) for _, _, steps in profiles]
        print(f"| {kind} steps, Σ medians ms | " + " | ".join(f"{v * 1e3:.3f}" for v in sums) + " |")
    print("| all steps, Σ medians ms | " +
          " | ".join(f"{sum(s for _, _, s, _ in steps) * 1e3:.3f}" for _, _, steps in profiles) + " |")
    print("| whole model, median ms | " +
          " | ".join(f"{median * 1e3:.3f}" for _, median, _ in profiles) + " |")
    print("| threads | " + " | ".join(str(threads) for threads, _, _ in profiles) + " |")


if __name__ == "__main__":
    main()
