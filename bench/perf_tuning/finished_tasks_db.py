#!/usr/bin/env python3
"""Merges two runs' database exports into one: the long run's records for the tasks it finished,
the other run's for the rest — so that a long run stopped part-way can be compiled into a whole
model and measured against the other run (bench/results/resnet18_1000_xeon.md's "hybrid").

Usage:
  finished_tasks_db.py --finished LONG.jsonl --budget 1000 --rest OTHER.jsonl --out MERGED.jsonl
  glimpse db import --db merged.db MERGED.jsonl

A task is finished when the long run has at least --budget records of its workload (failures
count, as in `glimpse tune --budget`). Inputs are `glimpse db export` JSON lines (.gz allowed);
every workload row of both is kept once.
"""
import argparse
import collections
import gzip
import json
import sys


def read_rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def merge(finished_rows, rest_rows, budget):
    """Returns (rows, finished workload keys)."""
    counts = collections.Counter(r["workload_key"] for r in finished_rows if r["type"] == "record")
    finished = {key for key, n in counts.items() if n >= budget}
    rows, seen = [], set()
    for r in finished_rows + rest_rows:
        if r["type"] == "workload" and r["key"] not in seen:
            seen.add(r["key"])
            rows.append(r)
    rows += [r for r in finished_rows if r["type"] == "record" and r["workload_key"] in finished]
    rows += [r for r in rest_rows if r["type"] == "record" and r["workload_key"] not in finished]
    return rows, finished


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--finished", required=True, help="the long run's export")
    parser.add_argument("--budget", type=int, required=True, help="its measurements per task")
    parser.add_argument("--rest", required=True, help="the export whose records fill the rest")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.budget < 1:
        sys.exit("--budget must be at least 1")
    rows, finished = merge(read_rows(args.finished), read_rows(args.rest), args.budget)
    with open(args.out, "w") as out:
        for r in rows:
            out.write(json.dumps(r) + "\n")
    records = sum(r["type"] == "record" for r in rows)
    print(f"{len(finished)} finished tasks from {args.finished}; {records} records in {args.out}")


if __name__ == "__main__":
    main()
