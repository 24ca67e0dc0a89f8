#!/usr/bin/env python3
"""Where a tuning run spent its measurements: the share of one knob's values, round by round.

Reads database exports (`glimpse db export --db RUN.db | gzip > RUN.jsonl.gz`, plain or gzipped)
and, over every operator whose space has the knob, counts the measurements of each of the knob's
values in consecutive rounds of --round measurements (in the order they were started), and which
value the fastest successful configuration of each operator has. A strategy that learns the knob
moves its measurements towards the winning value in later rounds; one that samples at random keeps
the shares it started with.

  bench/cpu_knob_share.py --knob layout --round 16 plan64=r18_s0.jsonl.gz plan16=r18_p16.jsonl.gz
"""
import argparse
import collections
import gzip
import json


def read_records(path):
    """The 'record' lines of a database export, grouped by workload key."""
    opener = gzip.open if path.endswith(".gz") else open
    by_workload = collections.defaultdict(list)
    with opener(path, "rt") as lines:
        for line in lines:
            if not line.strip():
                continue
            entry = json.loads(line)
            if entry.get("type") == "record":
                by_workload[entry["workload_key"]].append(entry)
    return by_workload


def knob_share(by_workload, knob, round_size):
    """({round: Counter(value)}, Counter(value of each operator's fastest), operators counted)."""
    rounds = collections.defaultdict(collections.Counter)
    winners = collections.Counter()
    operators = 0
    for records in by_workload.values():
        records = [r for r in records if knob in r["config"]]
        if not records:
            continue
        operators += 1
        # A batch's records share started_at; the export's order keeps them in measuring order.
        records = sorted(enumerate(records), key=lambda ir: (ir[1].get("started_at", 0), ir[0]))
        for position, (_, record) in enumerate(records):
            rounds[position // round_size][str(record["config"][knob])] += 1
        ok = [r for _, r in records if r["status"] == "ok"]
        if ok:
            winners[str(min(ok, key=lambda r: r["time_s"])["config"][knob])] += 1
    return rounds, winners, operators


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", help="NAME=EXPORT.jsonl[.gz]")
    parser.add_argument("--knob", default="layout")
    parser.add_argument("--round", type=int, default=16, help="measurements per round")
    args = parser.parse_args()
    if args.round < 1:
        parser.error("--round must be at least 1")
    print(f"| run | operators | {args.knob}: share of each value in measurements "
          f"1–{args.round}, {args.round + 1}–{2 * args.round}, … | fastest has |")
    print("|---|---|---|---|")
    for run in args.runs:
        name, sep, path = run.partition("=")
        if not sep:
            parser.error(f"run '{run}': give NAME=EXPORT.jsonl[.gz]")
        rounds, winners, operators = knob_share(read_records(path), args.knob, args.round)
        values = sorted(set().union(*rounds.values(), winners)) if rounds else []
        cells = []
        for value in values:
            shares = [rounds[r][value] / max(1, sum(rounds[r].values())) for r in sorted(rounds)]
            cells.append(f"{value} " + " / ".join(f"{100 * s:.0f}%" for s in shares))
        fastest = ", ".join(f"{value} {winners[value]}" for value in values)
        print(f"| {name} | {operators} | {'; '.join(cells)} | {fastest} |")


if __name__ == "__main__":
    main()
