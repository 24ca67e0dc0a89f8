#!/usr/bin/env python3
"""Reads variants.py's passes and ranks the rules: per rule the geometric mean and the worst of
(its time / the layer's fastest rule), over the layers, from each rule's median over the passes;
then the best sets of 2–4 rules (a set's time on a layer is its fastest rule's).

The strip widths are named by their rule rather than their value: `wide` is the largest divisor of
OW ≤ 30, `half` the one ≤ 15 (a layer where both are the same has `wide` only).
Usage: choose.py variants_pass1.jsonl variants_pass2.jsonl
"""
import itertools
import json
import math
import sys


def rule_name(name, OW):
    if not name.startswith('c'):
        return name
    block, width = name.split('_w')
    wide = max(d for d in range(1, min(OW, 30) + 1) if OW % d == 0)
    return f'{block}_{"wide" if int(width) == wide else "half"}'


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main():
    times = {}
    for path in sys.argv[1:]:
        for line in open(path):
            layer = json.loads(line)
            for name, us in layer['us'].items():
                times.setdefault(layer['op'], {}).setdefault(rule_name(name, layer['OW']), []).append(us)
    median = {op: {n: sorted(v)[(len(v) - 1) // 2:len(v) // 2 + 1] for n, v in rules.items()}
              for op, rules in times.items()}
    median = {op: {n: sum(v) / len(v) for n, v in rules.items()} for op, rules in median.items()}
    best = {op: min(rules.values()) for op, rules in median.items()}
    names = sorted({n for rules in median.values() for n in rules})
    print('| rule | geo-mean / fastest | worst | layers |\n|---|---:|---:|---:|')
    for n in names:
        xs = [median[op][n] / best[op] for op in median if n in median[op]]
        print(f'| {n} | {geomean(xs):.2f} | {max(xs):.2f} | {len(xs)} |')
    print()
    for size in (2, 3, 4):
        sets = sorted((geomean(xs), max(xs), s) for s in itertools.combinations(names, size)
                      for xs in [[min(median[op].get(n, math.inf) for n in s) / best[op]
                                  for op in median]])
        for g, w, s in sets[:3]:
            print(f'{size} rules: geo-mean {g:.3f}, worst {w:.2f}: {", ".join(s)}')
    print('\n| layer | fastest rule | µs |\n|---|---|---:|')
    for op, rules in median.items():
        n = min(rules, key=rules.get)
        print(f'| {op.split(":")[1]} | {n} | {rules[n]:.0f} |')


if __name__ == '__main__':
    main()
