#!/usr/bin/env python3
"""Re-measure a tuning database's fastest configurations on a quiet machine.

For each operator of --tasks, takes the measurements number --from to --to of its workload in the
database (in commit order, 1-based), picks the --top fastest distinct configurations that ran ok,
and measures them again with bench_cpu_templates (CpuBuilder + CpuRunner, the default protocol:
reference check, caches flushed before every timed call, median of >= 3 calls and >= 50 ms).
Writes JSON: op -> {"recorded_best_s", "remeasured_best_s", "configs"}.

Why: measurements taken while the machine also ran other work are slower than they should be and
noisy; the search they guided is still valid, but the figure reported for it must come from a quiet
run. bench/cpu_resnet18_report.py --remeasured uses this file for the checkpoints past --from.

  bench/cpu_remeasure_top.py --db DB --from 257 --to 1000 --top 5 --out FILE
"""
import argparse
import json
import re
import sqlite3
import subprocess
import sys


def canonical(text):
    name, _, fields = text.partition(":")
    f = dict(item.split("=") for item in fields.split(",") if item)
    defaults = {"bias": "0", "relu": "0"}
    if name in ("conv2d", "depthwise_conv2d"):  # both name every field in a database
        defaults.update({"stride": "1", "pad": "0", "dilation": "1"})
    for key, value in defaults.items():
        f.setdefault(key, value)
    return name + ":" + ",".join(f"{k}={v}" for k, v in sorted(f.items()))


def records_by_operator(db):
    """{canonical operator: [(status, time_s, config JSON text), ...]} in commit order."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = connection.execute(
        "SELECT w.name, r.status, r.time_s, r.config FROM records r JOIN workloads w "
        "ON r.workload_key = w.key ORDER BY r.id").fetchall()
    connection.close()
    per_op = {}
    for name, status, time_s, config in rows:
        per_op.setdefault(canonical(name), []).append((status, time_s, config))
    return per_op


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--tasks", default="bench/configs/resnet18_cpu_tasks.txt")
    parser.add_argument("--from", dest="first", type=int, default=257)
    parser.add_argument("--to", dest="last", type=int, default=1000)
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--bench", default="build/default/bench/bench_cpu_templates")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    # One operator per line; '#' starts a comment (a model's tasks file ends lines in '# weight N').
    ops = [op for op in (line.partition("#")[0].strip() for line in open(args.tasks)) if op]
    per_op = records_by_operator(args.db)

    result = {}
    for op in ops:
        records = per_op.get(canonical(op), [])[args.first - 1:args.last]
        best = {}
        for status, time_s, config in records:
            if status == "ok" and (config not in best or time_s < best[config]):
                best[config] = time_s
        top = sorted(best.items(), key=lambda item: item[1])[:args.top]
        if not top:
            print(f"{op}: no ok measurement in {args.first}..{args.last}", file=sys.stderr)
            continue
        command = [args.bench, "--op", op]
        for config, _ in top:
            command += ["--config", config]
        output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        row = next(line for line in output.splitlines() if line.startswith(f"| {op} |"))
        best_ms = float(re.search(r"\| ([0-9.]+) ms \|", row).group(1))
        result[op] = {"recorded_best_s": top[0][1], "remeasured_best_s": best_ms / 1e3,
                      "configs": [json.loads(config) for config, _ in top],
                      "measurements": [args.first, args.first - 1 + len(records)]}
        print(f"{op}: recorded {top[0][1] * 1e3:.3f} ms, re-measured {best_ms:.3f} ms",
              file=sys.stderr)
    with open(args.out, "w") as out:
        json.dump(result, out, indent=1)


if __name__ == "__main__":
    main()
