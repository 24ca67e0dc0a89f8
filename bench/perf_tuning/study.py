#!/usr/bin/env python3
"""Tuning with the learned performance model on operators it never saw (docs/perf-tuning.md).

  study.py run --ops FILE --model M.json --out DIR [--budget 64] [--seeds 1,2,3] [--strategies …]
  study.py summarize --out DIR [--corpus C.jsonl.gz] [--json FILE]

`run` tunes every operator of --ops (one per line, '#' comments) with each strategy and seed on
this CPU, each (strategy, seed) into its own database DIR/<strategy>-s<seed>.db so that no run
resumes another's records. Strategies:

  learned            xgb with --cost-model M (first plan from the model, then its base margin)
  learned-firstplan  the same with --tuner-option pretrained=first-plan
  hardware16         --cost-model M --hardware-budget 16 (the model's 16 best, nothing else)
  xgb                AutoTVM's XGBoost tuner, cold
  random             uniform sampling without replacement

`summarize` reads every database's records in commit order and reports, per operator and
strategy (median over seeds): measurements to reach 90/95/99 % of the best known time (the best
over every run and, with --corpus, the corpus's records of the operator; quality = best known /
best so far), and the quality after 8/16/32/64 measurements. A run that never reaches a level
counts as the budget + 1 ("> budget" in the table).
"""
import argparse
import gzip
import json
import math
import os
import statistics
import subprocess
import sys

STRATEGIES = {
    "learned": lambda model: ["--tuner", "xgb", "--cost-model", model],
    "learned-firstplan": lambda model: ["--tuner", "xgb", "--cost-model", model,
                                        "--tuner-option", "pretrained=first-plan"],
    "hardware16": lambda model: ["--cost-model", model, "--hardware-budget", "16"],
    "xgb": lambda model: ["--tuner", "xgb"],
    "random": lambda model: ["--tuner", "random"],
}
LEVELS = (0.90, 0.95, 0.99)
CHECKPOINTS = (8, 16, 32, 64)


def read_ops(path):
    with open(path) as f:
        return [line.split("#")[0].strip() for line in f if line.split("#")[0].strip()]


def glimpse_binary(args):
    return args.glimpse or os.environ.get("GLIMPSE", "build/ci/glimpse")


def run(args):
    ops = read_ops(args.ops)
    strategies = args.strategies.split(",")
    for name in strategies:
        if name not in STRATEGIES:
            sys.exit(f"study.py: unknown strategy '{name}'; known: {', '.join(STRATEGIES)}")
    if any(s.startswith(("learned", "hardware")) for s in strategies) and not args.model:
        sys.exit("study.py: the learned strategies need --model FILE (glimpse train perf-model)")
    os.makedirs(args.out, exist_ok=True)
    seeds = [int(s) for s in args.seeds.split(",")]
    study = {"ops": ops, "canonical": {}, "strategies": strategies, "seeds": seeds,
             "budget": args.budget, "model": args.model, "threads": args.threads}
    for op in ops:
        for name in strategies:
            for seed in seeds:
                db = os.path.join(args.out, f"{name}-s{seed}.db")
                command = [glimpse_binary(args), "tune", "--target", "cpu", "--op", op,
                           "--seed", str(seed), "--db", db, "--progress", "quiet", "--json",
                           "--threads", str(args.threads)] + STRATEGIES[name](args.model)
                if name != "hardware16":
                    command += ["--budget", str(args.budget)]
                print(f"{op} {name} seed {seed}", flush=True)
                done = subprocess.run(command, capture_output=True, text=True)
                if done.returncode != 0:
                    sys.exit(f"study.py: {' '.join(command)} failed:\n{done.stderr}")
                study["canonical"][op] = json.loads(done.stdout)["tasks"][0]["op"]
                with open(os.path.join(args.out, "study.json"), "w") as f:
                    json.dump(study, f, indent=2)


def records_by_op(glimpse, db):
    """{op text: [time_s or inf, …] in commit order} of one database."""
    out = subprocess.run([glimpse, "db", "export", "--db", db], capture_output=True, text=True,
                         check=True).stdout
    ops, times = {}, {}
    for line in out.splitlines():
        item = json.loads(line)
        if item["type"] == "workload":
            ops[item["key"]] = item["name"]  # the operator's canonical text
        elif item["type"] == "record":
            time = item["time_s"] if item["status"] == "ok" and item["time_s"] else math.inf
            times.setdefault(item["workload_key"], []).append(time)
    return {ops[key]: series for key, series in times.items()}


def corpus_best(path):
    best = {}
    with gzip.open(path, "rt") as f:
        next(f)  # header
        for line in f:
            record = json.loads(line)
            if record["status"] == "ok" and record["time_s"]:
                best[record["op"]] = min(best.get(record["op"], math.inf), record["time_s"])
    return best


def summarize(args):
    with open(os.path.join(args.out, "study.json")) as f:
        study = json.load(f)
    glimpse = glimpse_binary(args)
    runs = {}  # (strategy, seed) → {op: series}
    for name in study["strategies"]:
        for seed in study["seeds"]:
            db = os.path.join(args.out, f"{name}-s{seed}.db")
            if os.path.exists(db):
                runs[(name, seed)] = records_by_op(glimpse, db)
    best = corpus_best(args.corpus) if args.corpus else {}
    for series_of in runs.values():
        for op, series in series_of.items():
            best[op] = min(best.get(op, math.inf), min(series))
    budget = study["budget"]
    report = {"study": study, "operators": {}}
    for op in study["ops"]:
        key = study["canonical"].get(op, op)
        rows = {}
        for name in study["strategies"]:
            to_level = {level: [] for level in LEVELS}
            at = {n: [] for n in CHECKPOINTS}
            for seed in study["seeds"]:
                series = runs.get((name, seed), {}).get(key)
                if not series:
                    continue
                so_far, running = [], math.inf
                for time in series:
                    running = min(running, time)
                    so_far.append(best[key] / running if math.isfinite(running) else 0.0)
                for level in LEVELS:
                    hit = next((i + 1 for i, q in enumerate(so_far) if q >= level), budget + 1)
                    to_level[level].append(hit)
                for n in CHECKPOINTS:
                    if n <= len(so_far):
                        at[n].append(so_far[n - 1])
            rows[name] = {
                "to_level": {f"{level:.2f}": statistics.median(v) if v else None
                             for level, v in to_level.items()},
                "quality_at": {str(n): statistics.median(v) if v else None for n, v in at.items()},
            }
        report["operators"][op] = {"best_known_s": best.get(key), "strategies": rows}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
    print_table(report, budget)


def print_table(report, budget):
    header = "| operator | strategy | to 90 % | to 95 % | to 99 % | q@8 | q@16 | q@32 | q@64 |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    fmt_n = lambda n: "—" if n is None else (f"> {budget}" if n > budget else f"{n:g}")
    fmt_q = lambda q: "—" if q is None else f"{q:.3f}"
    for op, entry in report["operators"].items():
        for name, row in entry["strategies"].items():
            levels = [fmt_n(row["to_level"][f"{level:.2f}"]) for level in LEVELS]
            qualities = [fmt_q(row["quality_at"][str(n)]) for n in CHECKPOINTS]
            print(f"| `{op}` | {name} | " + " | ".join(levels + qualities) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="tune the operators with every strategy and seed")
    r.add_argument("--ops", required=True, help="operators, one per line")
    r.add_argument("--model", help="learned performance model (glimpse train perf-model)")
    r.add_argument("--out", required=True, help="folder for the databases and study.json")
    r.add_argument("--budget", type=int, default=64, help="measurements per run")
    r.add_argument("--seeds", default="1,2,3")
    r.add_argument("--strategies", default=",".join(STRATEGIES))
    r.add_argument("--threads", type=int, default=0, help="glimpse tune --threads")
    r.add_argument("--glimpse", help="the glimpse binary (default $GLIMPSE or build/ci/glimpse)")
    s = sub.add_parser("summarize", help="tables of a finished (or partial) run")
    s.add_argument("--out", required=True)
    s.add_argument("--corpus", help="corpus export whose records count towards the best known")
    s.add_argument("--json", help="also write the report as JSON")
    s.add_argument("--glimpse")
    args = parser.parse_args()
    run(args) if args.command == "run" else summarize(args)


if __name__ == "__main__":
    main()
