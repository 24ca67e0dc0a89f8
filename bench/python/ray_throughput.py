"""Measurements per second of glimpse.ray.tune with 1 and 2 workers on a local Ray cluster.

Two workloads: a recorded space replayed at a fixed pace per measurement (pace_ms: what a device
would take; the workers sleep, so this measures the spreading alone) and an operator tuned on this
CPU (compile + run in each worker; one OpenMP thread per worker, so two workers share the machine's
two CPUs).

Usage: PYTHONPATH=build/ci/python .venv/bin/python bench/python/ray_throughput.py
"""

import json
import sys
import time

import ray

import glimpse.ray

PNPOLY = "data/recorded/pnpoly/RTX_3090.json.gz"


def main():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             _node_ip_address="127.0.0.1", configure_logging=False)
    rows = []
    cases = [
        ("replay, 50 ms a measurement", dict(target="replay", recorded=PNPOLY, budget=96,
                                              measurer_options={"pace_ms": 50})),
        ("cpu dense:M=64,N=64,K=256", dict(op="dense:M=64,N=64,K=256", target="cpu", budget=48,
                                           measurer_options={"threads": 1})),
    ]
    for name, case in cases:
        for workers in (1, 2):
            started = time.perf_counter()
            summary = glimpse.ray.tune(tuner="random", seed=1, batch_size=16, workers=workers,
                                       **case)
            wall = time.perf_counter() - started
            rows.append({"workload": name, "workers": workers,
                         "measurements": summary["measurements"], "wall_s": round(wall, 2),
                         "per_s": round(summary["measurements"] / wall, 2)})
            print(rows[-1], file=sys.stderr, flush=True)
    ray.shutdown()
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
