#!/usr/bin/env python3
"""A model's CPU table: glimpse's tuned operators beside oneDNN, OpenBLAS, MetaSchedule, peak.

Written for ResNet-18 (the default --tasks) and used for any model of the zoo with its tasks
file (bench/configs/<model>_cpu_tasks.txt). The baselines run the bias and ReLU epilogues only:
an operator glimpse tunes with ReLU6 or a fused residual add is compared with the library's run
of the same convolution with ReLU and without the residual (marked †: glimpse does more work).

Reads what the runs wrote and nothing else (standard library only):
  --db FILE            a glimpse tuning database of `glimpse tune --target cpu --model resnet18`
  --baselines FILE     bench/cpu_baselines's --json output (oneDNN, OpenBLAS, the FP32 peak)
  --metaschedule FILE  bench/peers/metaschedule_peer.py's --out (optional)
  --checkpoints 64,256,1000   budgets at which glimpse's best-so-far is reported
  --tasks FILE         the operators, one per line; a trailing '# weight N' (the layers computing
                       it) on every line adds the summed latency of glimpse and oneDNN
  --remeasured FILE    bench/cpu_remeasure_top.py's --out (optional): for measurements it covers
                       (taken on a busy machine), its quiet re-measurement replaces the recorded
                       times in the checkpoints past its first measurement
and prints a Markdown report: GFLOP/s per operator, the geometric mean of glimpse / oneDNN over the
convolutions, dense / OpenBLAS, and the measurements glimpse needed to reach MetaSchedule's final
quality. A checkpoint beyond what a task measured is shown as "—", never extrapolated.
"""
import argparse
import json
import math
import sqlite3
import sys


def parse_op(text):
    name, _, fields = text.partition(":")
    values = dict(item.split("=") for item in fields.split(",") if item)
    return name, {k: int(v) for k, v in values.items()}


def op_flops(text):
    """2 × multiply-adds, as glimpse's OperatorFlops counts them (padding included)."""
    name, f = parse_op(text)
    if name == "dense":
        return 2.0 * f["M"] * f["N"] * f["K"]
    if name in ("conv2d", "depthwise_conv2d"):
        pad, stride, dil = f.get("pad", 0), f.get("stride", 1), f.get("dilation", 1)
        oh = (f["H"] + 2 * pad - dil * (f["R"] - 1) - 1) // stride + 1
        ow = (f["W"] + 2 * pad - dil * (f["S"] - 1) - 1) // stride + 1
        # A depthwise output channel reads one input channel, a conv2d one all C of them.
        reduced = f["C"] if name == "conv2d" else 1
        return 2.0 * f["N"] * f.get("K", f["C"]) * oh * ow * reduced * f["R"] * f["S"]
    raise ValueError(f"no FLOP count for operator '{name}'")


def op_text(name, fields):
    """The op text of parsed fields, every field in name order."""
    return name + ":" + ",".join(f"{k}={v}" for k, v in sorted(fields.items()))


def canonical(text):
    """The op text with every field, so that the three sources' spellings compare equal."""
    name, f = parse_op(text)
    defaults = {"bias": 0, "relu": 0, "relu6": 0, "residual": 0}
    if name in ("conv2d", "depthwise_conv2d"):
        defaults.update({"stride": 1, "pad": 0, "dilation": 1})
    for key, value in defaults.items():
        f.setdefault(key, value)
    return op_text(name, f)


def baseline_key(text):
    """The canonical op the baselines ran for glimpse's op: ReLU for ReLU6, no residual add."""
    name, f = parse_op(canonical(text))
    if f.get("relu6"):
        f["relu"], f["relu6"] = 1, 0
    f["residual"] = 0
    return op_text(name, f)


def glimpse_curves(db_path):
    """op → list of the measurement times in order (None for a failure)."""
    connection = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    curves, weights = {}, {}
    rows = connection.execute(
        "SELECT w.name, r.status, r.time_s FROM records r JOIN workloads w "
        "ON r.workload_key = w.key ORDER BY r.id")
    for name, status, time_s in rows:
        curves.setdefault(canonical(name), []).append(time_s if status == "ok" else None)
    return curves


def best_after(times, n):
    if len(times) < n:
        return None
    good = [t for t in times[:n] if t is not None]
    return min(good) if good else None


def first_reaching(times, target_s):
    best = math.inf
    for i, t in enumerate(times, start=1):
        if t is not None:
            best = min(best, t)
        if best <= target_s:
            return i
    return None


def fmt(value, digits=1):
    return "—" if value is None else f"{value:.{digits}f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--baselines", required=True)
    parser.add_argument("--metaschedule")
    parser.add_argument("--checkpoints", default="64,256,1000")
    parser.add_argument("--tasks", default="bench/configs/resnet18_cpu_tasks.txt")
    parser.add_argument("--remeasured")
    args = parser.parse_args()
    checkpoints = [int(c) for c in args.checkpoints.split(",")]

    tasks, weights = [], {}
    with open(args.tasks) as f:
        for line in f:
            op, _, comment = line.partition("#")
            if not op.strip():
                continue
            tasks.append(op.strip())
            words = comment.split()
            if len(words) == 2 and words[0] == "weight":
                weights[op.strip()] = int(words[1])
    curves = glimpse_curves(args.db)
    with open(args.baselines) as f:
        baselines = json.load(f)
    libs = {baseline_key(entry["op"]): entry["results"] for entry in baselines["ops"]}
    peak = max(p["gflops"] for p in baselines["peak"] if p["threads"] == max(
        q["threads"] for q in baselines["peak"]))
    remeasured = {}
    if args.remeasured:
        with open(args.remeasured) as f:
            remeasured = {canonical(op): entry for op, entry in json.load(f).items()}

    def best_at(key, times, n):
        """The best after n measurements; past a re-measured range's start, the quiet figure."""
        entry = remeasured.get(key)
        if entry is None or n < entry["measurements"][0] or len(times) < n:
            return best_after(times, n)
        before = best_after(times, entry["measurements"][0] - 1)
        return min(t for t in (before, entry["remeasured_best_s"]) if t is not None)

    ms = {}
    if args.metaschedule:
        with open(args.metaschedule) as f:
            doc = json.load(f)
        ms_trials = doc["settings"]["trials"]
        for entry in doc["ops"]:
            ms[canonical(entry["op"])] = entry

    header = (["operator"] + [f"glimpse @{c}" for c in checkpoints] +
              ["oneDNN (blocked)", "oneDNN (NCHW)", "OpenBLAS sgemm"] +
              ([f"MetaSchedule @{ms_trials}", "glimpse measurements to reach it"] if ms else []) +
              ["peak"])
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    conv_ratios, dense_ratios, reach, dense_lines = [], [], [], []
    ratios_by_kind = {}
    summed = {"glimpse": 0.0, "onednn_blocked": 0.0}  # Σ weight × time, when every task has both
    for op in tasks:
        key = canonical(op)
        flops = op_flops(op)
        times = curves.get(key, [])
        gf = lambda t: None if t is None else flops / t / 1e9
        base = baseline_key(op)
        row = [f"`{op}`" + (" †" if base != key else "")] + [
            fmt(gf(best_at(key, times, c))) for c in checkpoints]
        lib = libs.get(base, {})
        lib_gf = {name: lib[name]["gflops"] for name in lib if lib[name].get("passed", True)}
        row += [fmt(lib_gf.get("onednn_blocked")), fmt(lib_gf.get("onednn_plain")),
                fmt(lib_gf.get("openblas_sgemm"))]
        final = best_at(key, times, len(times)) if times else None
        lib_s = lib["onednn_blocked"]["median_s"] if "onednn_blocked" in lib_gf else None
        if op in weights and final and lib_s and summed is not None:
            summed["glimpse"] += weights[op] * final
            summed["onednn_blocked"] += weights[op] * lib_s
        else:
            summed = None
        if "conv2d" in key and final and "onednn_blocked" in lib_gf:
            ratio = gf(final) / lib_gf["onednn_blocked"]
            conv_ratios.append(ratio)
            _, f = parse_op(key)
            kind = ("depthwise" if key.startswith("depthwise") else
                    "1×1" if f["R"] == f["S"] == 1 else f"{f['R']}×{f['S']}")
            ratios_by_kind.setdefault(kind, []).append(ratio)
        if key.startswith("dense") and final and "openblas_sgemm" in lib_gf:
            dense_ratios.append(gf(final) / lib_gf["openblas_sgemm"])
        if key.startswith("dense") and final:
            # At M = 1 the layer is a matrix-vector product: judged by the weight bytes it
            # streams per second, beside the best oneDNN primitive.
            _, f = parse_op(key)
            onednn = max((lib_gf[n] for n in ("onednn_blocked", "onednn_plain") if n in lib_gf),
                         default=None)
            dense_lines.append(
                f"- `{op}`: glimpse streams its {f['N'] * f['K'] * 4 / 1e6:.1f} MB of weights at "
                f"{f['N'] * f['K'] * 4 / final / 1e9:.1f} GB/s"
                + (f"; glimpse / best oneDNN {gf(final) / onednn:.2f}×" if onednn else ""))
        if ms:
            entry = ms.get(key)
            if entry and entry.get("best"):
                target = entry["best"]["time_s"]
                n = first_reaching(times, target)
                reach.append((op, n, ms_trials))
                row += [fmt(entry["best"]["gflops"]), "not reached" if n is None else str(n)]
            else:
                row += ["—", "—"]
        row.append(fmt(peak))
        print("| " + " | ".join(row) + " |")
    print()
    def geomean(values):
        return math.exp(sum(math.log(r) for r in values) / len(values))

    if conv_ratios:
        print(f"- glimpse (final) / oneDNN blocked, geometric mean over {len(conv_ratios)} "
              f"convolutions: **{geomean(conv_ratios):.2f}×** (goal ≥ 1.0×); lowest "
              f"{min(conv_ratios):.2f}× (goal ≥ 0.85×)")
        if len(ratios_by_kind) > 1:
            print("- by kind: " + ", ".join(
                f"{kind} {geomean(values):.2f}× over {len(values)}"
                for kind, values in sorted(ratios_by_kind.items())))
    if dense_ratios:
        print(f"- glimpse (final) / OpenBLAS sgemm, geometric mean over {len(dense_ratios)} dense "
              f"layer(s): **{geomean(dense_ratios):.2f}×** (goal ≥ 0.9×)")
    for line in dense_lines:
        print(line)
    if reach:
        within = sum(1 for _, n, t in reach if n is not None and n <= t / 4)
        print(f"- MetaSchedule's final quality reached by glimpse within 1/4 of its {ms_trials} "
              f"measurements on {within} of {len(reach)} operators (goal: all)")
    if summed and len(weights) == len(tasks):
        print(f"- Σ weight × time over the {len(tasks)} tasks (the tuned operators only): glimpse "
              f"{summed['glimpse'] * 1e3:.2f} ms, oneDNN blocked {summed['onednn_blocked'] * 1e3:.2f} "
              f"ms ({summed['onednn_blocked'] / summed['glimpse']:.2f}×)")
    counts = {key: len(v) for key, v in curves.items()}
    print(f"- glimpse measurements per task: {sorted(set(counts.values()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
