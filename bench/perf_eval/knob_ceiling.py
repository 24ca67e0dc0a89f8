#!/usr/bin/env python3
"""How well an operator's own knob values rank its unmeasured configurations.

The question behind it: the loop-feature models rank a random fifth of each operator's
configurations at Kendall tau ~0.75 after training on the other four fifths of every operator
(`glimpse perf-model evaluate --split random`), while the same features fitted in-sample reach
0.99. Is information the program graph loses — something a configuration says that its loop nest
does not — what holds them? This fits, per operator, a gradient-boosted regression of ln time on
that operator's raw knob values alone (AutoTVM's per-task "knob" features: split factors as log2,
categories as indices, orders as positions) on a random 80 % of its records, and scores tau-b on
the other 20 %, the evaluation's metric. If the knobs alone ranked much better, the features
would be missing something; if worse, what limits the ranking is not what the loop nest leaves
out.

Model: scikit-learn's HistGradientBoostingRegressor (300 iterations, learning rate 0.1; the
evaluation's XGBoost defaults), not XGBoost: the repository's Python environment has it
(through Kernel Tuner) and not the xgboost package. Usage:

    bench/perf_eval/knob_ceiling.py data/corpus/cpu-amd-epyc.jsonl.gz [--seed 0]
"""
import argparse
import gzip
import json
import math
import random


def load(path):
    by_op = {}
    with gzip.open(path, "rt") as f:
        for line in f:
            record = json.loads(line)
            if "config" not in record or record.get("status") != "ok":
                continue
            if not record.get("time_s") or record["time_s"] <= 0:
                continue
            by_op.setdefault(record["op"], []).append(record)
    return by_op


def encode(config, categories):
    """One row of numbers for a configuration, knobs in name order: a split's factors as log2,
    a loop order (a permutation: it holds 0) as its positions, a category as the index of its
    first appearance in `categories` (per knob), a number as itself."""
    row = []
    for name in sorted(config):
        value = config[name]
        if isinstance(value, list):
            permutation = 0 in value
            row += [float(x) if permutation else math.log2(x) for x in value]
        elif isinstance(value, (int, float)):
            row.append(float(value))
        else:
            known = categories.setdefault(name, {})
            row.append(float(known.setdefault(value, len(known))))
    return row


def knob_taus(by_op, seed, test_fraction):
    """{kind: [tau-b of each operator's held-out configurations]}."""
    # Imported here: the encoding above needs only the standard library (and is tested without
    # these); the fit needs the repository's .venv (scripts/python-env.sh).
    import numpy as np
    from scipy.stats import kendalltau
    from sklearn.ensemble import HistGradientBoostingRegressor

    rng = random.Random(seed)
    by_kind = {}
    for op, records in sorted(by_op.items()):
        categories = {}
        rows = [encode(r["config"], categories) for r in records]
        width = max(len(row) for row in rows)
        x = np.array([row + [0.0] * (width - len(row)) for row in rows])
        y = np.log([r["time_s"] for r in records])
        order = list(range(len(records)))
        rng.shuffle(order)
        cut = int(round(len(order) * (1.0 - test_fraction)))
        train, test = order[:cut], order[cut:]
        model = HistGradientBoostingRegressor(max_iter=300, learning_rate=0.1, random_state=seed)
        model.fit(x[train], y[train])
        tau = kendalltau(model.predict(x[test]), y[test]).statistic
        by_kind.setdefault(records[0]["kind"], []).append(float(tau))
    return by_kind


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--test-fraction", type=float, default=0.2)
    args = parser.parse_args()
    by_kind = knob_taus(load(args.corpus), args.seed, args.test_fraction)
    taus = [t for ts in by_kind.values() for t in ts]
    print(f"{args.corpus}: {len(taus)} operators, {args.test_fraction:.0%} of each held out "
          f"(seed {args.seed})")
    print(f"mean Kendall tau-b within operator, knob values alone: {sum(taus) / len(taus):.3f}")
    for kind, ts in sorted(by_kind.items()):
        print(f"  {kind:18s} {len(ts):3d} operators  {sum(ts) / len(ts):.3f}")


if __name__ == "__main__":
    main()
