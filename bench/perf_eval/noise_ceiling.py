#!/usr/bin/env python3
"""How well the measurements themselves rank: the within-operator Kendall τ a perfect model of
the measured *medians* could not beat because the medians carry timer and machine noise.

Every ok record of a corpus (glimpse corpus export) keeps all its timed runs (`samples_s`). Split
each record's samples in two halves (even and odd positions), take each half's median, and score
the one half's medians against the other's as the evaluation scores a model: Kendall's τ-b within
each operator, averaged over operators (glimpse/perf_eval.h). Two single runs (the first against
the last) give the floor a one-run measurement would have.

This is noise *within one measurement run* (back to back, same process, same machine state): a
re-measurement on another day can only agree less, so the figure is an upper bound of how well
any model can rank a corpus's times.

Usage: bench/perf_eval/noise_ceiling.py CORPUS.jsonl.gz [--min-records 20]
"""
import argparse
import collections
import gzip
import json
import statistics
import sys


def kendall_tau_b(x, y):
    """τ-b: (concordant − discordant) / √((n0 − t_x)(n0 − t_y)); None when either side all ties."""
    n = len(x)
    concordant = discordant = ties_x = ties_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            if dx == 0:
                ties_x += 1
            if dy == 0:
                ties_y += 1
            if dx * dy > 0:
                concordant += 1
            elif dx * dy < 0:
                discordant += 1
    n0 = n * (n - 1) // 2
    denominator = ((n0 - ties_x) * (n0 - ties_y)) ** 0.5
    return None if denominator == 0 else (concordant - discordant) / denominator


def sampled_ok_records(path):
    """The ok records of a corpus file with at least two samples, in file order (a file that is
    not a corpus ends the program naming it)."""
    with gzip.open(path, "rt") as lines:
        header = json.loads(next(lines))
        if header.get("format") != "glimpse-perf-corpus":
            raise SystemExit(f"{path}: not a glimpse performance corpus (format "
                             f"{header.get('format')!r})")
        for line in lines:
            record = json.loads(line)
            if record.get("status") == "ok" and len(record.get("samples_s") or []) >= 2:
                yield record


def records_by_operator(path):
    """{op: [samples_s, …]} of the ok records with at least two samples."""
    by_operator = collections.defaultdict(list)
    for record in sampled_ok_records(path):
        by_operator[record["op"]].append(record["samples_s"])
    return by_operator


def ceiling(by_operator, min_records):
    """Per operator: (op, records, τ of the halves' medians, τ of the first run vs the last)."""
    rows = []
    for op, samples in sorted(by_operator.items()):
        if len(samples) < min_records:
            continue
        even = [statistics.median(s[0::2]) for s in samples]
        odd = [statistics.median(s[1::2]) for s in samples]
        halves = kendall_tau_b(even, odd)
        single = kendall_tau_b([s[0] for s in samples], [s[-1] for s in samples])
        if halves is not None and single is not None:
            rows.append((op, len(samples), halves, single))
    return rows


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--min-records", type=int, default=20,
                        help="skip operators with fewer ok records (default 20)")
    args = parser.parse_args(argv)
    rows = ceiling(records_by_operator(args.corpus), args.min_records)
    if not rows:
        raise SystemExit(f"{args.corpus}: no operator has {args.min_records} ok records with two "
                         "or more samples")
    print(f"{args.corpus}: {len(rows)} operators, {sum(r[1] for r in rows)} records")
    print(f"  tau of the two halves' medians, mean over operators: "
          f"{statistics.mean(r[2] for r in rows):.3f} (lowest {min(r[2] for r in rows):.3f})")
    print(f"  tau of the first run against the last, mean:          "
          f"{statistics.mean(r[3] for r in rows):.3f} (lowest {min(r[3] for r in rows):.3f})")
    print("  the five operators whose halves agree least:")
    for op, n, halves, single in sorted(rows, key=lambda r: r[2])[:5]:
        print(f"    {halves:.3f} (single runs {single:.3f}, {n} records)  {op}")


if __name__ == "__main__":
    main(sys.argv[1:])
