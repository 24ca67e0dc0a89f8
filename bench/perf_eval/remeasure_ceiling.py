#!/usr/bin/env python3
"""How well one sitting's measurements rank against another's: the within-operator Kendall τ
between a corpus and the same configurations measured again later (glimpse corpus measure into a
fresh database with the same --seed, so its uniform sample repeats the corpus's first ones).

noise_ceiling.py bounds a model by the noise inside one measurement (back-to-back runs of one
process). A model is trained on one sitting's times and judged against them, but a tuner acts on
times measured on another day; what the two sittings disagree on no model can get right in both.
For every (operator, configuration) ok in both files this scores, per operator: τ-b of the second
sitting's medians against the first's (as the evaluation scores a model), the halves' τ of the
first sitting on the same records (noise_ceiling.py's figure, for comparison), and the median
ratio second / first of the times (a sitting's drift).

Two sittings each carry their own noise, so a model that knew every configuration's true time
would agree with one sitting better than the two agree with each other. Under Gaussian noise
(Kendall's τ = (2/π)·arcsin ρ for Pearson's ρ, and ρ(sitting 1, sitting 2) = ρ(truth, sitting)²
when both sittings are equally noisy) that model's τ against one sitting is
(2/π)·arcsin(√sin(π·τ₁₂/2)): the "truth's τ" column, an estimate of the best any model can score
against the corpus's labels.

The same for the error of a time: issue 17 scores MAPE (pooled over records of at least 5 µs, as
`perf-model evaluate`). Taking the second sitting's time as the prediction of the first's gives the
MAPE of a "model" that is another sitting — raw, and with each operator's drift (its median ratio)
divided out, since a model trained on one sitting has that sitting's scale. With the drift out, the
log ratio ln(t₂/t₁) carries both sittings' noise, variance 2σ²; a model that knew the true times
would err by one sitting's noise, e^X − 1 with X ~ N(0, σ²), whose mean absolute value is
e^{σ²/2}·(2Φ(σ) − 1): the "truth's MAPE", an estimate of the least any model can score against the
corpus's labels.

`--first-out FILE` also writes the first file's records of the shared configurations as a corpus
of their own, so that a model can be scored on the same configurations against either sitting
(`glimpse perf-model evaluate --split none --predictors file:MODEL.json --corpus FILE`, then
`--corpus AGAIN.jsonl.gz`).

Usage: bench/perf_eval/remeasure_ceiling.py CORPUS.jsonl.gz AGAIN.jsonl.gz [--min-records 10]
           [--first-out FILE]
"""
import argparse
import gzip
import importlib.util
import json
import math
import os
import statistics
import sys

_spec = importlib.util.spec_from_file_location(
    "noise_ceiling", os.path.join(os.path.dirname(os.path.abspath(__file__)), "noise_ceiling.py"))
noise_ceiling = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(noise_ceiling)


def measured_key(record):
    """A record's operator and configuration (as canonical JSON): what two sittings share."""
    return record["op"], json.dumps(record["config"], sort_keys=True)


def ok_records(path):
    """{measured_key: samples_s} of the ok records with two samples."""
    return {measured_key(record): record["samples_s"]
            for record in noise_ceiling.sampled_ok_records(path)}


def write_shared(first_path, again, out_path):
    """Writes the records of first_path whose (op, configuration) is ok in `again` as a corpus
    (first_path's header, its record and operator counts made the subset's)."""
    with gzip.open(first_path, "rt") as lines:
        header = json.loads(next(lines))
        kept = [record for record in map(json.loads, lines) if measured_key(record) in again]
    header["records"] = len(kept)
    header["operators"] = len({record["op"] for record in kept})
    with gzip.open(out_path, "wt") as out:
        out.write(json.dumps(header) + "\n")
        for record in kept:
            out.write(json.dumps(record) + "\n")
    return len(kept)


def truth_tau(between):
    """The τ against one sitting of a model that knew the true times, from the two sittings'
    τ, under equal Gaussian noise in both (see the module's comment); 0 for a τ ≤ 0."""
    rho = math.sin(math.pi * between / 2)
    return 0.0 if rho <= 0 else 2 / math.pi * math.asin(math.sqrt(rho))


def compare(first, again, min_records):
    """Per operator with min_records shared configurations: (op, n, τ between the sittings,
    the first sitting's halves' τ on the same records, median time ratio again / first)."""
    by_operator = {}
    for key in first.keys() & again.keys():
        by_operator.setdefault(key[0], []).append((first[key], again[key]))
    rows = []
    for op, pairs in sorted(by_operator.items()):
        if len(pairs) < min_records:
            continue
        t1 = [statistics.median(a) for a, _ in pairs]
        t2 = [statistics.median(b) for _, b in pairs]
        between = noise_ceiling.kendall_tau_b(t1, t2)
        halves = noise_ceiling.kendall_tau_b([statistics.median(a[0::2]) for a, _ in pairs],
                                             [statistics.median(a[1::2]) for a, _ in pairs])
        ratio = statistics.median(y / x for x, y in zip(t1, t2))
        if between is not None and halves is not None:
            rows.append((op, len(pairs), between, halves, ratio))
    return rows


def mape(measured, predicted, min_time_s=5e-6):
    """Mean absolute percentage error in percent over the pairs whose measured time is at least
    min_time_s (as `perf-model evaluate` scores MAPE); None when no pair qualifies."""
    errors = [abs(p - m) / m for m, p in zip(measured, predicted) if m >= min_time_s]
    return 100 * statistics.mean(errors) if errors else None


def truth_mape(log_ratios, robust=False):
    """The MAPE in percent of a model that knew the true times, against one of two equally noisy
    sittings whose drift-free log ratios ln(t₂/t₁) are `log_ratios` (see the module's comment);
    None with fewer than two ratios. The ratios' spread is their standard deviation, or with
    `robust` 1.4826 × their median absolute deviation (the standard deviation of a normal sample
    with that MAD), which the few configurations one sitting caught in a slow state do not
    inflate."""
    if len(log_ratios) < 2:
        return None
    if robust:
        centre = statistics.median(log_ratios)
        spread = 1.4826 * statistics.median(abs(x - centre) for x in log_ratios)
    else:
        spread = statistics.stdev(log_ratios)
    sigma = spread / math.sqrt(2)
    phi = 0.5 * (1 + math.erf(sigma / math.sqrt(2)))
    return 100 * math.exp(sigma * sigma / 2) * (2 * phi - 1)


def errors_between(first, again, operators, min_time_s=5e-6):
    """Over the configurations of `operators` ok in both sittings, pooled: (MAPE of the second
    sitting's medians as predictions of the first's, the same with each operator's median ratio
    divided out of the second, the truth's MAPE from the drift-free log ratios — by their standard
    deviation and by their median absolute deviation), in percent;
    only configurations whose first time is at least min_time_s count."""
    t1, t2, t2_drift_free, log_ratios = [], [], [], []
    for op in operators:
        pairs = [(statistics.median(first[key]), statistics.median(again[key]))
                 for key in first.keys() & again.keys() if key[0] == op]
        drift = statistics.median(b / a for a, b in pairs)
        for a, b in pairs:
            if a < min_time_s:
                continue
            t1.append(a)
            t2.append(b)
            t2_drift_free.append(b / drift)
            log_ratios.append(math.log(b / drift / a))
    return (mape(t1, t2, min_time_s), mape(t1, t2_drift_free, min_time_s), truth_mape(log_ratios),
            truth_mape(log_ratios, robust=True))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("again")
    parser.add_argument("--min-records", type=int, default=10,
                        help="skip operators with fewer configurations ok in both (default 10)")
    parser.add_argument("--first-out", metavar="FILE",
                        help="also write the first file's records of the shared configurations "
                             "as a corpus")
    args = parser.parse_args(argv)
    again = ok_records(args.again)
    first = ok_records(args.corpus)
    rows = compare(first, again, args.min_records)
    if not rows:
        raise SystemExit(f"no operator has {args.min_records} configurations ok in both "
                         f"{args.corpus} and {args.again}")
    print(f"{len(rows)} operators, {sum(r[1] for r in rows)} configurations measured in both")
    print(f"  tau between the two sittings, mean over operators: "
          f"{statistics.mean(r[2] for r in rows):.3f} (lowest {min(r[2] for r in rows):.3f})")
    print(f"  the truth's tau against one sitting (estimate):    "
          f"{statistics.mean(truth_tau(r[2]) for r in rows):.3f}")
    print(f"  tau of the first sitting's halves, same records:   "
          f"{statistics.mean(r[3] for r in rows):.3f} (lowest {min(r[3] for r in rows):.3f})")
    raw, drift_free, truth, truth_robust = errors_between(first, again, [r[0] for r in rows])
    print(f"  MAPE (>= 5 us) of the second sitting's times as predictions of the first's: "
          f"{raw:.1f} %; each operator's drift divided out: {drift_free:.1f} %")
    print(f"  the truth's MAPE against one sitting (estimate):   {truth:.1f} % "
          f"({truth_robust:.1f} % from the log ratios' median absolute deviation)")
    print("  | operator | configurations | tau between sittings | truth's tau | tau of halves | "
          "median time ratio | MAPE % | MAPE % drift out | truth's MAPE % |")
    print("  |---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for op, n, between, halves, ratio in rows:
        op_raw, op_drift_free, op_truth, _ = errors_between(first, again, [op])
        print(f"  | {op} | {n} | {between:.3f} | {truth_tau(between):.3f} | {halves:.3f} | "
              f"{ratio:.3f} | {op_raw:.1f} | {op_drift_free:.1f} | {op_truth:.1f} |")
    if args.first_out:
        kept = write_shared(args.corpus, again, args.first_out)
        print(f"wrote {kept} records of {args.corpus} to {args.first_out}")


if __name__ == "__main__":
    main(sys.argv[1:])
