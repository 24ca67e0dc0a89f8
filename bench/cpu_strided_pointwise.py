#!/usr/bin/env python3
"""The strided 1x1 layers of ResNet-18 with the NCHWc_strided layout (issue 20's templates).

For each 1x1 stride-2 layer (bench/configs/resnet18_cpu_tasks.txt's three downsample
convolutions): tunes it with the AutoTVM-style XGBoost tuner (--budget measurements, seed 0,
one database per layer under --work, resumable), then re-measures, one after the other in one
sitting, the best configuration of each NCHWc layout the run found beside its twin — the same
knobs with the other layout, so the only difference is the activation packing (the whole input,
or only the positions the stride reads) — and oneDNN's blocked convolution under the same
protocol (cpu_baselines). Writes a Markdown table and a JSON file.

  bench/cpu_strided_pointwise.py --build build/ci --budget 64 --work build/strided \
      --out bench/results/cpu_strided_pointwise
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

LAYERS = [
    "conv2d:N=1,C=64,H=56,W=56,K=128,R=1,S=1,stride=2,pad=0,bias=1",
    "conv2d:N=1,C=128,H=28,W=28,K=256,R=1,S=1,stride=2,pad=0,bias=1",
    "conv2d:N=1,C=256,H=14,W=14,K=512,R=1,S=1,stride=2,pad=0,bias=1",
]
BLOCKED = ("NCHWc", "NCHWc_strided")


def run(command, **kwargs):
    print("+", " ".join(command), file=sys.stderr, flush=True)
    return subprocess.run(command, check=True, text=True, **kwargs)


def flops(op):
    f = dict(item.split("=") for item in op.split(":", 1)[1].split(","))
    n, c, h, w, k = (int(f[x]) for x in "NCHWK")
    s = int(f["stride"])
    return 2.0 * n * k * (h // s) * (w // s) * c


def records(glimpse, db):
    out = run([glimpse, "db", "export", "--db", db], capture_output=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    return [r for r in rows if r.get("type") == "record"]


def measure_configs(bench, op, configs):
    """bench_cpu_templates on the given configurations, one group each: median seconds."""
    command = [bench]
    for config in configs:
        command += ["--op", op, "--config", json.dumps(config, separators=(",", ":"))]
    out = run(command, capture_output=True).stdout
    times = [float(m) * 1e-3 for m in re.findall(r"\|\s*([0-9.]+) ms\s*\|", out)]
    if len(times) != len(configs):
        sys.exit(f"cpu_strided_pointwise: expected {len(configs)} rows from bench_cpu_templates, "
                 f"got:\n{out}")
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build/ci")
    parser.add_argument("--budget", type=int, default=64)
    parser.add_argument("--work", default="build/strided")
    parser.add_argument("--out", required=True, help="path without extension (.md and .json)")
    args = parser.parse_args()
    glimpse = os.path.join(args.build, "glimpse")
    bench = os.path.join(args.build, "bench", "bench_cpu_templates")
    baselines = os.path.join(args.build, "bench", "cpu_baselines")
    os.makedirs(args.work, exist_ok=True)
    started = time.time()

    results = []
    for index, op in enumerate(LAYERS):
        db = os.path.join(args.work, f"layer{index}.db")
        t0 = time.time()
        run([glimpse, "tune", "--target", "cpu", "--op", op, "--tuner", "xgb", "--budget",
             str(args.budget), "--seed", "0", "--db", db, "--progress", "quiet"],
            stdout=subprocess.DEVNULL)
        tune_s = time.time() - t0
        ok = [r for r in records(glimpse, db) if r["status"] == "ok"]
        by_layout = {}
        for r in ok:
            layout = r["config"]["layout"]
            by_layout[layout] = by_layout.get(layout, 0) + 1
        best = min(ok, key=lambda r: r["time_s"])
        row = {"op": op, "measurements": len(records(glimpse, db)), "ok_by_layout": by_layout,
               "tune_s": tune_s, "best_layout": best["config"]["layout"],
               "best_recorded_s": best["time_s"], "pairs": []}
        for layout in BLOCKED:
            mine = [r for r in ok if r["config"]["layout"] == layout]
            if not mine:
                continue
            config = min(mine, key=lambda r: r["time_s"])["config"]
            twin = dict(config, layout=BLOCKED[1 - BLOCKED.index(layout)])
            times = measure_configs(bench, op, [config, twin])
            row["pairs"].append({"found_with": layout, "config": config,
                                 "seconds": {layout: times[0], twin["layout"]: times[1]}})
        results.append(row)

    baseline_json = os.path.join(args.work, "baselines.json")
    command = [baselines, "--json", baseline_json]
    for op in LAYERS:
        command += ["--op", op]
    run(command, stdout=subprocess.DEVNULL)
    onednn = {}
    for entry in json.load(open(baseline_json))["ops"]:
        blocked = entry["results"].get("onednn_blocked", {})
        if "median_s" in blocked:
            onednn[entry["op"]] = blocked["median_s"]

    def gflops(op, seconds):
        return flops(op) / seconds / 1e9

    lines = [
        "| layer | glimpse @%d (recorded) | best layout | NCHWc | NCHWc_strided | strided / NCHWc | "
        "oneDNN (blocked) | glimpse / oneDNN |" % args.budget,
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for row in results:
        op = row["op"]
        canonical = next((k for k in onednn if k.startswith(op.replace(",bias=1", ""))), None)
        base = onednn.get(canonical)
        # The pair found by the run's best layout: both timed in this sitting.
        pair = next(p for p in row["pairs"] if p["found_with"] == row["best_layout"])
        plain, strided = pair["seconds"]["NCHWc"], pair["seconds"]["NCHWc_strided"]
        best_now = min(plain, strided)
        lines.append(
            f"| `{op}` | {gflops(op, row['best_recorded_s']):.1f} | {row['best_layout']} | "
            f"{gflops(op, plain):.1f} | {gflops(op, strided):.1f} | {plain / strided:.2f}x | "
            + (f"{gflops(op, base):.1f} | {base / best_now:.2f}x |" if base else "— | — |"))
        row["onednn_blocked_s"] = base
    with open(args.out + ".json", "w") as f:
        json.dump({"budget": args.budget, "layers": results, "wall_s": time.time() - started,
                   "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started))},
                  f, indent=1)
    with open(args.out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
