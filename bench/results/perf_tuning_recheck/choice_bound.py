#!/usr/bin/env python3
"""How much of a run's re-timed quality its own choice lost: per strategy, the median over
operators (of the median over seeds) of the quality after n measurements if the run had chosen,
among the configurations that were its best so far by its own measurements up to n, the one that
re-timed fastest — beside the quality of the configuration it did choose. The gap is what a
noisy pick cost; the bound is what the search itself found.

  choice_bound.py STUDY_DIR RECHECK_JSON[.gz]     (study.py recheck --json's file)
"""
import gzip
import json
import os
import statistics
import sys
import types

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "perf_tuning"))
import study as S  # noqa: E402

CHECKPOINTS = (8, 12, 16, 32)


def main():
    out, recheck_path = sys.argv[1], sys.argv[2]
    opener = gzip.open if recheck_path.endswith(".gz") else open
    with opener(recheck_path, "rt") as f:
        report = json.load(f)
    retimed = report["retimed"]
    study, items_of = S.study_runs(types.SimpleNamespace(out=out, glimpse=None))
    print("| strategy | " + " | ".join(f"chosen q@{n} | bound q@{n}" for n in CHECKPOINTS) + " |")
    print("|---|" + "---:|---:|" * len(CHECKPOINTS))
    for name in study["strategies"]:
        chosen_at, bound_at = {n: [] for n in CHECKPOINTS}, {n: [] for n in CHECKPOINTS}
        for op in study["ops"]:
            key = study["canonical"].get(op, op)
            times = retimed.get(key)
            if not times:
                continue
            best = min(times.values())
            per_seed_chosen, per_seed_bound = {n: [] for n in CHECKPOINTS}, {n: [] for n in CHECKPOINTS}
            for seed in study["seeds"]:
                items = items_of.get((name, seed))
                if items is None:
                    continue
                series = S.incumbents(items).get(key, [])
                length = len(S.records_by_op(items).get(key, []))
                for n in CHECKPOINTS:
                    if n > length:
                        continue
                    upto = [(m, c) for m, c in series if m <= n]
                    last = times.get(upto[-1][1]) if upto else None
                    found = [times[c] for _, c in upto if times.get(c)]
                    per_seed_chosen[n].append(best / last if last else 0.0)
                    per_seed_bound[n].append(best / min(found) if found else 0.0)
            for n in CHECKPOINTS:
                if per_seed_chosen[n]:
                    chosen_at[n].append(statistics.median(per_seed_chosen[n]))
                    bound_at[n].append(statistics.median(per_seed_bound[n]))
        cells = []
        for n in CHECKPOINTS:
            if chosen_at[n]:
                cells += [f"{statistics.median(chosen_at[n]):.3f}",
                          f"{statistics.median(bound_at[n]):.3f}"]
            else:
                cells += ["—", "—"]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
