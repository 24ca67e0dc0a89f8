#!/usr/bin/env python3
"""Each run's pick, re-timed in one sitting.

q@16 divides an operator's best known by the best each run measured, and the runs were measured
at different times on a host whose memory speed comes and goes (../../perf_tuning_schedule.md,
"The dense layer's quality is the host's"). This script takes each run's pick (its fastest
record), times every distinct pick of an operator again with glimpse's runner protocol
(`bench_cpu_templates --config`, 2 threads, cold caches), ROUNDS rounds in alternating order, and
scores each run by the fastest re-timed pick of its operator over its own pick's re-timed time
(the median of its rounds).

  retime.py --runs DIR [--runs DIR]... --bench build/ci/bench/bench_cpu_templates \
      [--rounds 2] --out OUT.json      # then: retime.py --summarize OUT.json
"""
import argparse
import glob
import gzip
import json
import os
import re
import statistics
import subprocess
import sys


def picks(dirs):
    """{op: {run name: config}} from the runs' exported records (<strategy>-s<seed>.jsonl.gz)."""
    out = {}
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "*-s*.jsonl.gz"))):
            run = os.path.basename(path)[: -len(".jsonl.gz")]
            with gzip.open(path, "rt") as f:
                items = [json.loads(line) for line in f if line.strip()]
            names = {i["key"]: i["name"] for i in items if i.get("type") == "workload"}
            best = {}
            for i in items:
                if i.get("type") == "record" and i["status"] == "ok" and i["time_s"]:
                    op = names[i["workload_key"]]
                    if op not in best or i["time_s"] < best[op]["time_s"]:
                        best[op] = i
            for op, record in best.items():
                out.setdefault(op, {})[run] = record["config"]
    return out


def time_configs(bench, op, configs):
    """Median times (s) of `configs` of `op`, one bench_cpu_templates process for all."""
    command = [bench, "--threads", "2"]
    for config in configs:
        command += ["--op", op, "--config", json.dumps(config, separators=(",", ":"))]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    rows = [line for line in done.stdout.splitlines() if re.match(r"\| (conv2d|dense|depthwise)", line)]
    if len(rows) != len(configs):
        sys.exit(f"retime.py: {len(rows)} rows for {len(configs)} configurations of {op}")
    times = []
    for row in rows:
        cell = row.split("|")[7].strip()  # "0.2310 ms"
        value, unit = cell.split()
        times.append(float(value) * {"ms": 1e-3, "us": 1e-6, "µs": 1e-6, "s": 1.0}[unit])
    return times


def run(args):
    by_op = picks(args.runs)
    result = {"rounds": args.rounds, "ops": {}}
    for op, runs in by_op.items():
        distinct = []
        for config in runs.values():
            if config not in distinct:
                distinct.append(config)
        samples = [[] for _ in distinct]
        for round_index in range(args.rounds):
            order = list(range(len(distinct)))
            if round_index % 2:
                order.reverse()
            times = time_configs(args.bench, op, [distinct[i] for i in order])
            for i, t in zip(order, times):
                samples[i].append(t)
            print(f"{op}: round {round_index + 1}, {len(distinct)} picks", flush=True)
        result["ops"][op] = {
            "picks": [{"config": c, "times_s": s} for c, s in zip(distinct, samples)],
            "runs": {run_name: distinct.index(c) for run_name, c in runs.items()},
        }
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)


def summarize(path):
    with open(path) as f:
        result = json.load(f)
    strategies = {}
    per_op = {}
    for op, entry in result["ops"].items():
        medians = [statistics.median(p["times_s"]) for p in entry["picks"]]
        best = min(medians)
        for run_name, index in entry["runs"].items():
            strategy = re.sub(r"-s\d+$", "", run_name)
            per_op.setdefault(op, {}).setdefault(strategy, []).append(best / medians[index])
            strategies.setdefault(strategy, None)
    print("| operator | " + " | ".join(strategies) + " |")
    print("|---|" + "---:|" * len(strategies))
    overall = {s: [] for s in strategies}
    for op, rows in per_op.items():
        cells = []
        for s in strategies:
            q = statistics.median(rows.get(s, [float("nan")]))
            overall[s].append(q)
            cells.append(f"{q:.3f}")
        print(f"| `{op}` | " + " | ".join(cells) + " |")
    print("| **median over operators** | " +
          " | ".join(f"{statistics.median(overall[s]):.3f}" for s in strategies) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", action="append", default=[])
    parser.add_argument("--bench")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out")
    parser.add_argument("--summarize")
    args = parser.parse_args()
    if args.summarize:
        summarize(args.summarize)
    elif args.runs and args.bench and args.out:
        run(args)
    else:
        parser.error("give --runs, --bench and --out, or --summarize FILE")


if __name__ == "__main__":
    main()
