#!/usr/bin/env python3
"""Tabulates bench/overlap/run.sh's three runs: measurements per minute of tuning, and what was
found (the estimated model latency: the layers' weighted best times)."""
import json
import sys
from pathlib import Path


def summarize(path):
    report = json.loads(path.read_text())
    tasks = [t for t in report["tasks"] if t.get("measurements")]
    measurements = sum(t["measurements"] for t in tasks)
    elapsed = sum(t["elapsed_s"] for t in tasks)
    tuner = sum(t["tuner_s"] for t in tasks)
    failed = sum(t["failed"] for t in tasks)
    latency = sum(t["weight"] * t["best"]["time_s"] for t in tasks if t.get("best"))
    return measurements, elapsed, tuner, failed, latency


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent / "runs")
    rows = []
    for name in ("all-cpus", "one-less", "overlap"):
        path = out / f"{name}.json"
        if path.exists() and path.stat().st_size > 0:
            rows.append((name, *summarize(path)))
    print("| run | measurements | tuning wall-clock (s) | measurements / min | of which tuner (s) "
          "| failed | estimated latency (ms) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, m, elapsed, tuner, failed, latency in rows:
        print(f"| {name} | {m} | {elapsed:.1f} | {60 * m / elapsed:.1f} | {tuner:.1f} | {failed} "
              f"| {1e3 * latency:.2f} |")


if __name__ == "__main__":
    main()
