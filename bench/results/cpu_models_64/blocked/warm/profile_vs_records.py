#!/usr/bin/env python3
"""Per kernel of a compiled model: the record its configuration came from (the manifest's
best_time_s, what the compile's estimate sums) against the kernel's median inside the model
(`glimpse run --profile` at 2 threads, the fastest of the given rounds: rounds in the machine's
slow mode drop out).

    profile_vs_records.py DIR LIB:ROUNDS [LIB:ROUNDS ...]     e.g.  /tmp/w warm:1,2,6 retuned:4,9,10

reads DIR/<LIB>-r<round>.json (warm/run.sh's outputs) and the manifest DIR/lib<LIB>/glimpse-compile.json,
or DIR/manifest-<LIB>.json as this directory keeps it:
    profile_vs_records.py bench/results/cpu_models_64/blocked/warm flushed:1,2,6 warm:1,2,6,9,10 retuned:4,9,10"""
import collections
import json
import os
import sys


def kind(op):
    if op.startswith('depthwise'):
        return 'depthwise'
    if op.startswith('dense'):
        return 'dense'
    return '1x1' if ',R=1,' in op else 'other conv'


def main():
    out = sys.argv[1]
    for arg in sys.argv[2:]:
        lib, rounds = arg.split(':')
        path = f'{out}/manifest-{lib}.json'
        if not os.path.exists(path):
            path = f'{out}/lib{lib}/glimpse-compile.json'
        manifest = json.load(open(path))
        record = {k['op']: k['best_time_s'] * len(k['layers']) for k in manifest['kernels']}
        in_model = collections.defaultdict(list)
        for r in rounds.split(','):
            runs = json.load(open(f'{out}/{lib}-r{r}.json'))['runs']
            run = next(x for x in runs if x['glimpse']['threads'] == 2)
            per = collections.defaultdict(float)
            for step in run['glimpse']['profile']['steps']:
                if step['kind'] == 'kernel':
                    per[step['name'].split(': ', 1)[1].rsplit(' (', 1)[0]] += step['median_s']
            for op, seconds in per.items():
                in_model[op].append(seconds)
        fastest = {op: min(v) for op, v in in_model.items()}
        print(f'{lib} (rounds {rounds}): Σ records {sum(record.values()) * 1e3:.3f} ms, '
              f'Σ in-model kernel times {sum(fastest.values()) * 1e3:.3f} ms, '
              f'records / in-model {sum(record.values()) / sum(fastest.values()):.3f}')
        by_kind = collections.defaultdict(lambda: [0.0, 0.0, 0])
        for op in fastest:
            k = by_kind[kind(op)]
            k[0] += record[op]
            k[1] += fastest[op]
            k[2] += 1
        for name, (rec, model, count) in sorted(by_kind.items()):
            print(f'  {name} ({count}): records {rec * 1e3:.3f} ms, in the model {model * 1e3:.3f} ms, '
                  f'{rec / model:.2f}x')


if __name__ == '__main__':
    main()
