#!/usr/bin/env python3
"""Re-measure several tuning runs' fastest configurations side by side, interleaved.

For each operator of --tasks, takes each run's --top fastest distinct configurations that ran ok
(its database's records, as cpu_remeasure_top.py reads them), and measures the union of them with
bench_cpu_templates in one process per operator and pass — every configuration its own group, so
each gets its own row — in a different order on every pass (rotated, and reversed on every other
cycle of passes).
A configuration's time is its fastest pass; a run's time for the operator is its fastest
configuration; a run's total is Σ weight × time over the operators every run has (weights from the
tasks file's '# weight N' comments, 1 without one).

Why: on a shared 2-CPU guest, a kernel's time drifts by tens of per cent between minutes and
sessions (the host takes the second CPU now and then), so runs re-measured one after the other are
not comparable; measured in the same minutes, in alternating order, and taken at their fastest
pass, they are. Two runs that measured the same configurations come out equal by construction.

A run tuned with channel-blocked activations (in_block / out_block) counts for the task of the
same operator in NCHW: its configurations are measured on its own blocked operator, beside the
other runs' plain ones, so that a blocked run and a plain run of one model compare layer by layer.

  bench/cpu_remeasure_runs.py --run ref=build/r18/ref256.db --run hw16=build/r18/hw16.db \\
      --tasks bench/configs/resnet18_fused_cpu_tasks.txt --top 3 --passes 2 \\
      --bench build/ci/bench/bench_cpu_templates --reference ref --out FILE.json > FILE.md
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_remeasure_top import canonical, records_by_operator  # noqa: E402


def read_tasks(path):
    """[(operator, weight)] from a tasks file: one operator a line, '# weight N' after it."""
    tasks = []
    for line in open(path):
        op, _, comment = line.partition("#")
        op = op.strip()
        if not op:
            continue
        weight = re.search(r"weight\s+(\d+)", comment)
        tasks.append((op, int(weight.group(1)) if weight else 1))
    return tasks


def plain_layout(op):
    """The operator with its activation blocks (in_block, out_block) removed."""
    return re.sub(r",(in|out)_block=\d+", "", op)


def top_configs(db, top):
    """{canonical operator in NCHW: [(operator as tuned, config JSON text), ...]}: the `top`
    fastest distinct ok ones."""
    best = {}
    for op, records in records_by_operator(db).items():
        per_op = best.setdefault(plain_layout(op), {})
        for status, time_s, config in records:
            if status != "ok" or time_s is None:
                continue
            key = (op, json.dumps(json.loads(config), sort_keys=True))
            if key not in per_op or time_s < per_op[key]:
                per_op[key] = time_s
    return {op: [c for c, _ in sorted(per_op.items(), key=lambda item: item[1])[:top]]
            for op, per_op in best.items()}


def pass_order(n, index):
    """Pass `index`'s order of n configurations: rotated by index, and reversed on every other
    cycle of n passes. (Reversing odd passes instead left two configurations in one order on every
    pass: [1, 0] reversed is [0, 1].)"""
    order = [(i + index) % n for i in range(n)] if n else []
    return order[::-1] if n and (index // n) % 2 else order


def measure(bench, candidates, threads):
    """Times in seconds (None where the configuration failed) of (operator, config) pairs, in
    the order given."""
    command = [bench]
    if threads:
        command += ["--threads", str(threads)]
    for op, config in candidates:
        command += ["--op", op, "--config", config]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    prefixes = tuple(f"| {op} | " for op in {op for op, _ in candidates})
    rows = [line for line in output.splitlines() if line.startswith(prefixes)]
    if len(rows) != len(candidates):
        raise SystemExit(f"{bench}: {len(rows)} rows for {len(candidates)} configurations")
    times = []
    for row in rows:
        found = re.search(r"\| ([0-9.]+) ms \|", row)
        times.append(float(found.group(1)) / 1e3 if found else None)
    return times


def timed_in_passes(bench, candidates, passes, threads):
    """{(operator, config): [time_s or None per pass]}: the candidates measured `passes` times,
    one bench process a pass, in pass_order's order."""
    samples = {candidate: [] for candidate in candidates}
    for index in range(passes):
        ordered = [candidates[i] for i in pass_order(len(candidates), index)]
        for candidate, time_s in zip(ordered, measure(bench, ordered, threads)):
            samples[candidate].append(time_s)
    return samples


def fastest_pass(samples):
    """{candidate: its fastest time over the passes, None where every pass failed}."""
    return {c: min((t for t in ts if t is not None), default=None) for c, ts in samples.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="append", required=True, metavar="NAME=DB")
    parser.add_argument("--tasks", required=True)
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--bench", default="build/default/bench/bench_cpu_templates")
    parser.add_argument("--reference", help="the run the others are divided by")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    runs = []
    for text in args.run:
        name, sep, db = text.partition("=")
        if not sep or not name or not os.path.exists(db):
            parser.error(f"--run {text}: expected NAME=DB with an existing database file")
        runs.append((name, top_configs(db, args.top)))
    names = [name for name, _ in runs]
    if args.reference and args.reference not in names:
        parser.error(f"--reference {args.reference}: not one of the runs ({', '.join(names)})")

    result = {"runs": names, "top": args.top, "passes": args.passes, "operators": {}}
    for op, weight in read_tasks(args.tasks):
        key = canonical(op)
        owners = {}  # (operator as tuned, config) -> the runs that have it among their top
        for name, per_op in runs:
            for config in per_op.get(key, []):
                owners.setdefault(config, []).append(name)
        configs = list(owners)
        if not configs:
            print(f"{op}: no run has an ok measurement", file=sys.stderr)
            continue
        samples = timed_in_passes(args.bench, configs, args.passes, args.threads)
        fastest = fastest_pass(samples)
        best = {}
        for name in names:
            own = [fastest[c] for c in configs if name in owners[c] and fastest[c] is not None]
            best[name] = min(own) if own else None
        result["operators"][op] = {
            "weight": weight, "best_s": best,
            "configs": [{"operator": tuned, "config": json.loads(c), "runs": owners[(tuned, c)],
                         "times_s": samples[(tuned, c)]} for tuned, c in configs]}
        print(f"{op}: " + ", ".join(
            f"{n} {best[n] * 1e3:.3f} ms" if best[n] else f"{n} -" for n in names),
            file=sys.stderr)

    measured = [op for op, entry in result["operators"].items()
                if all(entry["best_s"][n] is not None for n in names)]
    totals = {n: sum(result["operators"][op]["weight"] * result["operators"][op]["best_s"][n]
                     for op in measured) for n in names}
    result["totals_s"] = totals
    result["total_over"] = measured
    with open(args.out, "w") as out:
        json.dump(result, out, indent=1)

    print("| operator | weight | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for op, entry in result["operators"].items():
        cells = [f"{entry['best_s'][n] * 1e3:.3f}" if entry["best_s"][n] else "—" for n in names]
        print(f"| {op} | {entry['weight']} | " + " | ".join(cells) + " |")
    print(f"| Σ weight × best over {len(measured)} operators (ms) | | "
          + " | ".join(f"{totals[n] * 1e3:.2f}" for n in names) + " |")
    if args.reference:
        print(f"| over {args.reference} | | "
              + " | ".join(f"{totals[n] / totals[args.reference]:.2f}×" for n in names) + " |")


if __name__ == "__main__":
    main()
