#!/usr/bin/env python3
"""How much of a run's re-timed quality its own choice lost: per strategy, the median over
operators (of the median over seeds) of the quality after n measurements of the configuration the
run chose (study.py recheck's figure), beside the bound: the quality had it chosen, among the
configurations that were its best so far by its own measurements up to n, the one that re-timed
fastest. The gap is what a noisy pick cost; the bound is what the search itself found.

  choice_bound.py STUDY_DIR RECHECK_JSON[.gz] [--runs-from DIR …] [--seeds 1,2,3]

RECHECK_JSON: study.py recheck --json's file for STUDY_DIR. --runs-from: folders to read the runs
STUDY_DIR has no database or export of (a study continued in a copy of another's folder).
--seeds: only these seeds.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "perf_tuning"))
import study as S  # noqa: E402

CHECKPOINTS = (8, 12, 16, 32)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("recheck_json")
    parser.add_argument("--runs-from", action="append", default=[])
    parser.add_argument("--seeds")
    args = parser.parse_args()
    study, retimed = S.load_recheck(args.out, args.recheck_json)
    seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else study["seeds"]
    glimpse = os.environ.get("GLIMPSE", "build/ci/glimpse")
    print("| strategy | " + " | ".join(f"chosen q@{n} | bound q@{n}" for n in CHECKPOINTS) + " |")
    print("|---|" + "---:|---:|" * len(CHECKPOINTS))
    for name in study["strategies"]:
        runs = S.strategy_runs(glimpse, [args.out] + args.runs_from, name, seeds)
        chosen_at, bound_at = {n: [] for n in CHECKPOINTS}, {n: [] for n in CHECKPOINTS}
        for op in study["ops"]:
            key = study["canonical"].get(op, op)
            times = retimed.get(key)
            if not times:
                continue
            fastest = lambda configs: min(configs, key=lambda c: times.get(c, float("inf")))
            chosen, bound = {n: [] for n in CHECKPOINTS}, {n: [] for n in CHECKPOINTS}
            for incumbents, records in runs.values():
                series, length = incumbents.get(key, []), len(records.get(key, []))
                own = S.retimed_qualities(series, length, times)
                best_found = S.retimed_qualities(series, length, times, choose=fastest)
                for n in CHECKPOINTS:
                    if n <= length:
                        chosen[n].append(own[n - 1])
                        bound[n].append(best_found[n - 1])
            for n in CHECKPOINTS:
                if chosen[n]:
                    chosen_at[n].append(statistics.median(chosen[n]))
                    bound_at[n].append(statistics.median(bound[n]))
        cells = []
        for n in CHECKPOINTS:
            cells += ([f"{statistics.median(chosen_at[n]):.3f}",
                       f"{statistics.median(bound_at[n]):.3f}"] if chosen_at[n] else ["—", "—"])
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
