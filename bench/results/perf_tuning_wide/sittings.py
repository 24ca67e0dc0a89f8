#!/usr/bin/env python3
"""The same configurations re-timed in two sittings: per operator, how much slower (or faster)
each configuration ran in the second than in the first, and how far the best known moved — to
tell a sitting that only scales every time (qualities unchanged) from one that reorders them.

usage: sittings.py SECOND_RECHECK_JSON FIRST_RECHECK_JSON [FIRST…]
Each file is `study.py recheck --json`'s (gzip or plain): its "retimed" holds, per operator, the
fastest pass of every configuration that was some run's best so far. Only configurations both
files re-timed are compared; the best known is each file's own fastest configuration."""
import gzip
import json
import statistics
import sys


def retimed(path):
    """{operator: {configuration: seconds}} of one recheck file."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)["retimed"]


def compare(second, first):
    """Per operator of `second` that `first` re-timed too: (configurations in both, min / median /
    max of second's time over first's per configuration, second's best known over first's)."""
    rows = {}
    for op, times in second.items():
        other = first.get(op, {})
        common = [config for config in times if config in other]
        if not common:
            continue
        ratios = sorted(times[config] / other[config] for config in common)
        best = min(times.values()) / min(other.values())
        rows[op] = (len(common), ratios[0], statistics.median(ratios), ratios[-1], best)
    return rows


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[1].splitlines()[0])
    second = retimed(sys.argv[1])
    print(f"second sitting: {sys.argv[1]}")
    for path in sys.argv[2:]:
        print(f"\nfirst sitting: {path}")
        print(f"  {'operator':<86} {'configs':>7} {'min':>5} {'median':>6} {'max':>5} {'best':>5}")
        for op, (n, low, mid, high, best) in compare(second, retimed(path)).items():
            print(f"  {op:<86} {n:>7} {low:>5.2f} {mid:>6.2f} {high:>5.2f} {best:>5.2f}")


if __name__ == "__main__":
    main()
