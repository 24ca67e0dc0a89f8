#!/usr/bin/env python3
"""The template seeds of plain (NCHW) 1×1 stride-1 convolutions against the same seeds with half
the columns in the register tile, on every such layer of the zoo's task lists, side by side
(--blocked: the same layers with activations blocked by 16).

Why: the seeds fill the registers (28 accumulators on AVX-512: 16 channels × 28 columns or 32 ×
14), but the fastest configurations tuning found on the held-out study's two plain 1×1 layers
(short reductions: 24 and 64 input channels over 56×56 planes) hold 16 channels × 14 columns.
With a short reduction a tile does few FMAs per store of its accumulators, so fewer columns may
win there and lose where the reduction is long. This measures where.

The seeds are what `glimpse tune` measures first (records with strategy "seed"); each seed's
twin has tile_ow's inner factor the largest divisor of OW up to half of it. Timed by
bench_cpu_templates, one process per operator and pass, the order rotated, the fastest of
--passes counting.

  probe_columns.py --glimpse build/ci/glimpse --bench build/ci/bench/bench_cpu_templates \\
      --passes 2 --out DIR > table.md
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "bench"))
sys.path.insert(0, os.path.join(REPO, "bench", "results", "perf_tuning_cold", "plain_pointwise"))
from cpu_remeasure_runs import fastest_pass, timed_in_passes  # noqa: E402
from probe import dims, plain_pointwise_ops, seeds  # noqa: E402


def largest_divisor_at_most(n, limit):
    return max(d for d in range(1, max(limit, 1) + 1) if n % d == 0)


def half_columns(config, out_w):
    c = json.loads(config)
    columns = c["tile_ow"][2]
    fewer = largest_divisor_at_most(out_w, columns // 2)
    if fewer == columns or columns < 2:
        return None
    c["tile_ow"] = [1, out_w // fewer, fewer]
    return json.dumps(c, sort_keys=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--glimpse", default="build/ci/glimpse")
    parser.add_argument("--bench", default="build/ci/bench/bench_cpu_templates")
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ops", help="only operators containing this text")
    parser.add_argument("--blocked", action="store_true",
                        help="the layers with activations blocked by 16 (in_block=16,out_block=16; "
                             "those with C or K no multiple of 16 left out), as the zoo's models "
                             "tune them")
    parser.add_argument("--out", required=True, help="folder for probe.json")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    ops = [op for op in plain_pointwise_ops() if not args.ops or args.ops in op]
    if args.blocked:
        ops = [op + ",in_block=16,out_block=16" for op in ops
               if dims(op)["C"] % 16 == 0 and dims(op)["K"] % 16 == 0]
    for op in ops:
        out_w = dims(op)["W"]
        seed_configs = seeds(args.glimpse, op, args.threads)
        twins = [t for t in (half_columns(c, out_w) for c in seed_configs)
                 if t is not None and t not in seed_configs]
        samples = timed_in_passes(args.bench, [(op, c) for c in seed_configs + twins],
                                  args.passes, args.threads)
        fastest = {c: t for (_, c), t in fastest_pass(samples).items() if t is not None}
        best = lambda configs: min((fastest[c] for c in configs if c in fastest), default=None)
        rows.append({"op": op, "seeds": {c: fastest.get(c) for c in seed_configs},
                     "twins": {c: fastest.get(c) for c in twins},
                     "best_seed_s": best(seed_configs), "best_twin_s": best(twins)})
        print(f"probe: {op}: best seed {rows[-1]['best_seed_s']}, best twin "
              f"{rows[-1]['best_twin_s']}", file=sys.stderr, flush=True)
    with open(os.path.join(args.out, "probe.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print("| operator | C | OH·OW | seeds | best seed µs | best half-columns twin µs | "
          "best seed ÷ best twin |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        d = dims(r["op"])
        fmt = lambda t: "—" if t is None else f"{t * 1e6:.1f}"
        ratio = (f"{r['best_seed_s'] / r['best_twin_s']:.3f}"
                 if r["best_seed_s"] and r["best_twin_s"] else "—")
        print(f"| `{r['op']}` | {d['C']} | {d['H'] * d['W']} | {len(r['seeds'])} | "
              f"{fmt(r['best_seed_s'])} | {fmt(r['best_twin_s'])} | {ratio} |")


if __name__ == "__main__":
    main()
