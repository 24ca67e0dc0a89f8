#!/usr/bin/env python3
"""Compare the per-step profiles of compiled models, step by step.

Reads the --json reports of `glimpse run DIR --profile` (one per build of a model, e.g. compiled
with --layout nchw and with --layout blocked) and prints one markdown table: each step's median in
every report, matched by the step's op name (the text before its first ": ", so a layer and its
blocked twin share a row; a reorder step is named by its tensor), the ratio of each report to the
first, and the totals per kind of step. Steps only one report has show "-" for the others.

A label may name several reports, comma-separated (the same build timed in several processes,
alternating with the other build): each step's time is then its smallest median among them, and
the whole model's its smallest median — on a shared machine whose processes fall into a fast or a
slow mode for seconds at a time, the least disturbed figures (the harness JSON works as well as
glimpse run's).

  bench/compare_step_profiles.py nchw=run_nchw.json blocked=run_blocked.json [--threads 2]
  bench/compare_step_profiles.py nchw=alt/nchw_1.json,alt/nchw_2.json blocked=alt/blocked_1.json,...
"""
import argparse
import json
import sys


def load_one(path, threads):
    """(threads, whole-model median, [(op name, kind, median)]) of a glimpse run or harness JSON."""
    with open(path) as f:
        report = json.load(f)
    # glimpse run --json: {"runs": [{"threads", "glimpse": harness JSON}]}; the harness: its JSON.
    runs = [(run["threads"], run["glimpse"]) for run in report["runs"]] if "runs" in report \
        else [(report["threads"], report)]
    for run_threads, timing in runs:
        if threads is not None and run_threads != threads:
            continue
        profile = timing.get("profile")
        if profile is None:
            sys.exit(f"{path}: the run at {run_threads} thread(s) has no profile (--profile)")
        steps = [(step["name"].split(": ", 1)[0], step["kind"], step["median_s"])
                 for step in profile["steps"]]
        return run_threads, timing["median_s"], steps
    sys.exit(f"{path}: no run at {threads} thread(s)")


def load_steps(paths, threads):
    """The reports of one label merged: each step's and the whole model's smallest median."""
    loaded = [load_one(path, threads) for path in paths]
    names = [[name for name, _, _ in steps] for _, _, steps in loaded]
    if any(n != names[0] for n in names):
        sys.exit(f"{','.join(paths)}: the reports have different steps (different builds?)")
    steps = [(name, kind, min(l[2][i][2] for l in loaded))
             for i, (name, kind, _) in enumerate(loaded[0][2])]
    return loaded[0][0], min(l[1] for l in loaded), steps


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
        profiles.append(load_steps(path.split(","), args.threads))

    # Rows in the first report's order, then steps only later reports have.
    order, kind_of, times = [], {}, {}
    for r, (_, _, steps) in enumerate(profiles):
        for name, kind, seconds in steps:
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
        sums = [sum(s for _, k, s in steps if k == kind) for _, _, steps in profiles]
        print(f"| {kind} steps, Σ medians ms | " + " | ".join(f"{v * 1e3:.3f}" for v in sums) + " |")
    print("| all steps, Σ medians ms | " +
          " | ".join(f"{sum(s for _, _, s in steps) * 1e3:.3f}" for _, _, steps in profiles) + " |")
    print("| whole model, median ms (smallest of the label's reports) | " +
          " | ".join(f"{median * 1e3:.3f}" for _, median, _ in profiles) + " |")
    print("| threads | " + " | ".join(str(threads) for threads, _, _ in profiles) + " |")


if __name__ == "__main__":
    main()
