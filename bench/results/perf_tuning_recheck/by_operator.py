#!/usr/bin/env python3
"""Two strategies of a study side by side, per operator, on one re-timing: the re-timed quality
after N measurements (default 16) of each seed's run, its mean and median over the seeds, and
the median over operators — to see on which operators one strategy's search finds more.

usage: by_operator.py STUDY_DIR RECHECK_JSON A B [--at N] [--runs-from DIR]
STUDY_DIR: the study's databases and study.json (or its exports with --runs-from);
RECHECK_JSON: study.py recheck --json's file (gzip or plain)."""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "perf_tuning"))
import study as S  # noqa: E402


def qualities(runs, op_key, times, at):
    """q@at of each run ({seed: (incumbents, records by op)}) on one operator, by seed."""
    out = []
    for incumbents, records in runs.values():
        series, length = incumbents.get(op_key, []), len(records.get(op_key, []))
        if length >= at:
            out.append(S.retimed_qualities(series, length, times)[at - 1])
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("recheck_json")
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--at", type=int, default=16)
    parser.add_argument("--runs-from", action="append", default=[])
    args = parser.parse_args()
    study, retimed = S.load_recheck(args.out, args.recheck_json)
    glimpse = os.environ.get("GLIMPSE", "build/ci/glimpse")
    folders = [args.out] + args.runs_from
    runs = {name: S.strategy_runs(glimpse, folders, name, study["seeds"])
            for name in (args.a, args.b)}  # each run read once
    print(f"| operator | {args.a}: q@{args.at} by seed | mean | median "
          f"| {args.b}: q@{args.at} by seed | mean | median |")
    print("|---|---|---:|---:|---|---:|---:|")
    medians = {args.a: [], args.b: []}
    for op in study["ops"]:
        key = study["canonical"].get(op, op)
        times = retimed.get(key)
        if not times:
            continue
        cells = []
        for name in (args.a, args.b):
            q = qualities(runs[name], key, times, args.at)
            if not q:
                cells += ["—", "—", "—"]
                continue
            medians[name].append(statistics.median(q))
            cells += [" ".join(f"{x:.3f}" for x in q), f"{statistics.mean(q):.3f}",
                      f"{statistics.median(q):.3f}"]
        print(f"| `{op.split(',bias')[0]}` | " + " | ".join(cells) + " |")
    print(f"| **median over operators** | | | "
          f"**{statistics.median(medians[args.a]):.3f}** | | | "
          f"**{statistics.median(medians[args.b]):.3f}** |")


if __name__ == "__main__":
    main()
