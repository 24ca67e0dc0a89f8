#!/usr/bin/env python3
"""Runs re-measured side by side (cpu_remeasure_runs.py) against the libraries (cpu_baselines).

For every operator both files hold, prints each run's GFLOP/s beside oneDNN's (blocked layouts),
then per run the geometric mean of run / oneDNN over the convolutions (conv2d and depthwise), by
kind (1×1, 3×3, depthwise, other), the lowest, and — against --reference — on how many operators
each run is faster and the geometric mean of its time ratio.

Operators are matched as cpu_baselines ran them: a fused residual add dropped and ReLU6 run as
ReLU (the libraries cannot run those epilogues; glimpse then does more work than the library on
those rows, which is marked †). FLOPs come from cpu_baselines' JSON (OperatorFlops).

  bench/cpu_remeasure_vs_baselines.py remeasure.json baselines.json.gz --reference without
"""
import argparse
import gzip
import json
import math
import sys


def as_baseline(op):
    """The operator as cpu_baselines ran it (canonical text), and whether glimpse's has an
    epilogue more."""
    name, _, fields = op.partition(":")
    f = dict(item.split("=") for item in fields.split(",") if item)
    fused = f.pop("residual", "0") == "1"
    if f.pop("relu6", "0") == "1":
        f["relu"] = "1"
        fused = True
    defaults = {"bias": "0", "relu": "0"}
    if name in ("conv2d", "depthwise_conv2d"):
        defaults.update({"stride": "1", "pad": "0", "dilation": "1"})
    for key, value in defaults.items():
        f.setdefault(key, value)
    return name + ":" + ",".join(f"{k}={v}" for k, v in sorted(f.items())), fused


def kind_of(op):
    name, _, fields = op.partition(":")
    f = dict(item.split("=") for item in fields.split(",") if item)
    if name == "depthwise_conv2d":
        return "depthwise"
    if name != "conv2d":
        return None
    rs = (f.get("R"), f.get("S"))
    return {("1", "1"): "1x1", ("3", "3"): "3x3"}.get(rs, "other")


def load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as handle:
        return json.load(handle)


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def compare(remeasure, baselines, reference=None):
    """The per-operator rows and the per-run summaries, as plain data."""
    library = {}
    for entry in baselines["ops"]:
        blocked = entry["results"].get("onednn_blocked", {})
        if blocked.get("median_s"):
            library[as_baseline(entry["op"])[0]] = (entry["flops"], blocked["median_s"])
    runs = remeasure["runs"]
    rows = []
    for op, data in remeasure["operators"].items():
        key, fused = as_baseline(op)
        if key not in library:
            continue
        flops, onednn_s = library[key]
        best = data["best_s"]
        if not all(best.get(run) for run in runs):
            continue
        rows.append({"op": op, "kind": kind_of(op), "fused": fused, "flops": flops,
                     "onednn_s": onednn_s, "best_s": {run: best[run] for run in runs}})
    summaries = {}
    for run in runs:
        convs = [r for r in rows if r["kind"]]
        ratios = [r["onednn_s"] / r["best_s"][run] for r in convs]
        by_kind = {}
        for r in convs:
            by_kind.setdefault(r["kind"], []).append(r["onednn_s"] / r["best_s"][run])
        summary = {"convolutions": len(convs), "geomean_vs_onednn": geomean(ratios),
                   "by_kind": {k: (geomean(v), len(v)) for k, v in sorted(by_kind.items())}}
        if convs:
            lowest = min(convs, key=lambda r: r["onednn_s"] / r["best_s"][run])
            summary["lowest"] = (lowest["onednn_s"] / lowest["best_s"][run], lowest["op"])
        if reference and run != reference:
            summary["faster_than_reference"] = sum(
                r["best_s"][run] < r["best_s"][reference] for r in rows)
            summary["operators"] = len(rows)
            summary["time_geomean_vs_reference"] = geomean(
                [r["best_s"][run] / r["best_s"][reference] for r in rows])
        summaries[run] = summary
    return rows, summaries


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("remeasure", help="cpu_remeasure_runs.py's --out JSON")
    parser.add_argument("baselines", help="cpu_baselines' --json (.json or .json.gz)")
    parser.add_argument("--reference", help="the run the others are compared with")
    args = parser.parse_args()
    remeasure = load_json(args.remeasure)
    if args.reference and args.reference not in remeasure["runs"]:
        sys.exit(f"--reference {args.reference}: not a run of {args.remeasure} "
                 f"(its runs: {', '.join(remeasure['runs'])})")
    rows, summaries = compare(remeasure, load_json(args.baselines), args.reference)
    if not rows:
        sys.exit(f"no operator of {args.remeasure} is in {args.baselines}")
    runs = remeasure["runs"]
    print("| operator | " + " | ".join(runs) + " | oneDNN (blocked) |")
    print("|---|" + "---:|" * (len(runs) + 1))
    for r in rows:
        gflops = [r["flops"] / r["best_s"][run] / 1e9 for run in runs]
        cells = " | ".join(f"{g:.1f}" for g in gflops)
        mark = " †" if r["fused"] else ""
        print(f"| `{r['op']}`{mark} | {cells} | {r['flops'] / r['onednn_s'] / 1e9:.1f} |")
    print()
    for run in runs:
        s = summaries[run]
        kinds = ", ".join(f"{k} {g:.2f}x ({n})" for k, (g, n) in s["by_kind"].items())
        line = (f"- {run}: / oneDNN blocked geo-mean over {s['convolutions']} convolutions "
                f"{s['geomean_vs_onednn']:.2f}x ({kinds})")
        if "lowest" in s:
            line += f"; lowest {s['lowest'][0]:.2f}x `{s['lowest'][1]}`"
        if "faster_than_reference" in s:
            line += (f"; faster than {args.reference} on {s['faster_than_reference']} of "
                     f"{s['operators']}, time geo-mean {s['time_geomean_vs_reference']:.2f}x")
        print(line)


if __name__ == "__main__":
    main()
