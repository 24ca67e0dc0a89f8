#!/usr/bin/env python3
"""The table of bench/results/model_compile.md from bench/onnx/model_bench.sh's results: per model
and thread count, glimpse's measured whole-model latency beside ONNX Runtime's and PyTorch's, the
estimate from the tuned kernels, the time outside them, and the output errors.

    python3 bench/onnx/model_report.py bench/results/model_compile/*-b600
"""
import json
import os
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def main():
    print("| model | threads | glimpse ms | ONNX Runtime ms | PyTorch ms | glimpse / ORT | "
          "estimate (Σ tuned kernels) ms | outside the kernels | max rel. error vs reference | "
          "vs ORT |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for d in sys.argv[1:]:
        run = load(os.path.join(d, "run.json"))
        manifest = load(os.path.join(d, "lib", "glimpse-compile.json"))
        estimate = manifest["estimated_kernels_s"] if manifest["estimate_complete"] else None
        name = os.path.basename(d)
        for r in run["runs"]:
            t = r["threads"]
            ours = r["glimpse"]["median_s"]
            ort = r["onnxruntime"]["median_s"]
            torch = load(os.path.join(d, f"torch-{t}t.json"))["median_s"]
            scale = max(r["max_abs_reference"], 1e-30)
            # The estimate is of kernels timed at the tuning's thread count (all CPUs).
            est = f"{estimate * 1e3:.2f}" if estimate is not None and t == tune_threads() else "-"
            outside = (f"{(ours - estimate) * 1e3:.2f} ms ({(ours - estimate) / ours:.0%})"
                       if est != "-" else "-")
            print(f"| {name} | {t} | {ours * 1e3:.2f} | {ort * 1e3:.2f} | {torch * 1e3:.2f} | "
                  f"{ours / ort:.2f} | {est} | {outside} | "
                  f"{r['max_abs_error_vs_reference'] / scale:.1e} | "
                  f"{r['max_abs_error_vs_onnxruntime'] / scale:.1e} |")


def tune_threads():
    """The thread count the kernels were tuned (and their times recorded) at: every CPU."""
    return os.cpu_count()


if __name__ == "__main__":
    main()
