#!/usr/bin/env python3
"""A candidate template seed for plain (NCHW) 1×1 stride-1 convolutions, against the template
seeds glimpse measures first today, on every such layer of the zoo's task lists, side by side.

The candidate copies the shape of the fastest configurations of the sixth study's two plain 1×1
layers (perf_tuning.md, "The sixth study re-timed in one sitting"): the input packed in blocks of
16 channels, a register tile of one block of 16 output channels × 7 columns (7 accumulators) with
the block loop k1o outside it (4 blocks a group), groups of 7 output rows spread over the threads
(parallel oh; single rows where that leaves fewer than 4 groups), the reduction c0 c1 inside.
The seeds are what `glimpse tune --template-seeds 4` measures first (its records with strategy
"seed"). Everything is then timed by bench_cpu_templates, one process per operator and pass, the
order rotated, the fastest of --passes counting.

  probe.py --glimpse build/ci/glimpse --bench build/ci/bench/bench_cpu_templates --passes 2 \\
      --out DIR > table.md
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "bench"))
from cpu_remeasure_runs import fastest_pass, timed_in_passes  # noqa: E402

TASKS = ["resnet18_cpu_tasks.txt", "resnet50_cpu_tasks.txt", "mobilenet_v2_cpu_tasks.txt",
         "vgg16_cpu_tasks.txt"]


def plain_pointwise_ops():
    ops = set()
    for name in TASKS:
        for line in open(os.path.join(REPO, "bench", "configs", name)):
            op = line.split("#")[0].strip().replace(",relu6=1", ",relu=1")
            if (op.startswith("conv2d:") and ",R=1,S=1," in op and "stride=2" not in op
                    and "_block" not in op):
                ops.add(op)
    return sorted(ops)


def dims(op):
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", op)}


def candidate(op):
    d = dims(op)
    if d["K"] % 16 or d["C"] % 16 or d["W"] % 7 or d["H"] % 7:
        return None
    blocks = 4 if (d["K"] // 16) % 4 == 0 else (2 if (d["K"] // 16) % 2 == 0 else 1)
    # Groups of 7 rows where that leaves at least two groups per thread (of 2), else single rows.
    rows = 7 if d["H"] // 7 >= 4 else 1
    return json.dumps({"layout": "NCHWc", "order": [4, 2, 0, 1, 3], "parallel": "oh",
                       "tile_c": [d["C"] // 16, 16], "tile_k": [d["K"] // (16 * blocks), blocks, 16],
                       "tile_oh": [d["H"] // rows, rows], "tile_ow": [1, d["W"] // 7, 7],
                       "unroll": 1, "vectorize": 1}, sort_keys=True)


def seeds(glimpse, op, threads):
    """The configurations `glimpse tune` measures first as template seeds."""
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "seeds.db")
        subprocess.run([glimpse, "tune", "--target", "cpu", "--op", op, "--budget", "4",
                        "--tuner", "random", "--db", db, "--progress", "quiet",
                        "--threads", str(threads)], check=True, capture_output=True)
        out = subprocess.run([glimpse, "db", "export", "--db", db], check=True,
                             capture_output=True, text=True).stdout
    return [json.dumps(item["config"], sort_keys=True) for item in map(json.loads, out.splitlines())
            if item["type"] == "record" and item.get("strategy") == "seed"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--glimpse", default="build/ci/glimpse")
    parser.add_argument("--bench", default="build/ci/bench/bench_cpu_templates")
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", required=True, help="folder for probe.json")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for op in plain_pointwise_ops():
        cand = candidate(op)
        if cand is None:
            print(f"probe: {op}: no candidate (K, C not multiples of 16 or H, W of 7)",
                  file=sys.stderr)
            continue
        configs = seeds(args.glimpse, op, args.threads)
        configs = configs + [cand] if cand not in configs else configs
        samples = timed_in_passes(args.bench, [(op, c) for c in configs], args.passes,
                                  args.threads)
        fastest = {c: t for (_, c), t in fastest_pass(samples).items() if t is not None}
        seed_times = [fastest[c] for c in configs[:-1] if c in fastest]
        rows.append({"op": op, "seeds": {c: fastest.get(c) for c in configs[:-1]},
                     "candidate": cand, "candidate_s": fastest.get(cand),
                     "best_seed_s": min(seed_times) if seed_times else None})
        r = rows[-1]
        print(f"probe: {op}: best seed {r['best_seed_s']}, candidate {r['candidate_s']}",
              file=sys.stderr, flush=True)
    with open(os.path.join(args.out, "probe.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print("| operator | seeds | best seed µs | candidate µs | best seed ÷ candidate |")
    print("|---|---:|---:|---:|---:|")
    ratios = []
    for r in rows:
        if r["best_seed_s"] and r["candidate_s"]:
            ratios.append(r["best_seed_s"] / r["candidate_s"])
        fmt = lambda t: "failed" if t is None else f"{t * 1e6:.1f}"
        ratio = f"{ratios[-1]:.3f}" if r["best_seed_s"] and r["candidate_s"] else "—"
        print(f"| `{r['op']}` | {len(r['seeds'])} | {fmt(r['best_seed_s'])} | "
              f"{fmt(r['candidate_s'])} | {ratio} |")
    if ratios:
        geo = 1.0
        for x in ratios:
            geo *= x
        geo **= 1 / len(ratios)
        faster = sum(x > 1 for x in ratios)
        print(f"\n{len(ratios)} operators; the candidate faster than every seed on {faster}; "
              f"geometric mean of best seed ÷ candidate {geo:.3f}")


if __name__ == "__main__":
    main()
