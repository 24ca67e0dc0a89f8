"""Times each layer's best recorded configuration with two builds of bench_cpu_templates in turn.

The blocked templates' activation packing changed between the builds (rows copied in strips, the
channel loop outside the strip); the configurations, and so the workload keys, did not. Each pass
times every configuration with both builds, the order of the builds alternating between passes.
Writes bench/cpu_remeasure_runs.py's JSON (runs "before" and "after"), which
bench/cpu_remeasure_vs_baselines.py reads.

  python3 bench/results/cpu_models_64/pack_strips/compare_builds.py --db RUN.db \\
      --tasks bench/configs/vgg16_cpu_tasks.txt --before OLD/bench_cpu_templates \\
      --after NEW/bench_cpu_templates --passes 3 --out FILE.json > FILE.md
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", ".."))
from cpu_remeasure_runs import measure, read_tasks, top_configs  # noqa: E402
from cpu_remeasure_top import canonical  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--tasks", required=True)
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    best_configs = top_configs(args.db, 1)
    builds = [("before", args.before), ("after", args.after)]
    result = {"runs": ["before", "after"], "top": 1, "passes": args.passes, "operators": {}}
    print("| layer | layout | before (ms) | after (ms) | after / before |")
    print("|---|---|---:|---:|---:|")
    for op, weight in read_tasks(args.tasks):
        configs = best_configs.get(canonical(op))
        if not configs:
            print(f"{op}: no ok measurement in {args.db}", file=sys.stderr)
            continue
        config = configs[0]
        samples = {name: [] for name, _ in builds}
        for index in range(args.passes):
            for name, bench in builds[::-1] if index % 2 else builds:
                samples[name].extend(measure(bench, op, [config], 0))
        best = {name: min((t for t in ts if t is not None), default=None)
                for name, ts in samples.items()}
        result["operators"][op] = {
            "weight": weight, "best_s": best,
            "configs": [{"config": json.loads(config), "runs": [name],
                         "times_s": samples[name]} for name, _ in builds]}
        layout = json.loads(config).get("layout", json.loads(config).get("vector_axis", "-"))
        ratio = (f"{best['after'] / best['before']:.3f}"
                 if best["after"] and best["before"] else "-")
        fmt = lambda t: f"{t * 1e3:.3f}" if t else "-"  # noqa: E731
        print(f"| {op} | {layout} | {fmt(best['before'])} | {fmt(best['after'])} | {ratio} |",
              flush=True)
    measured = [e for e in result["operators"].values() if all(e["best_s"].values())]
    result["totals_s"] = {name: sum(e["weight"] * e["best_s"][name] for e in measured)
                          for name, _ in builds}
    print(f"\nΣ weight × best: before {result['totals_s']['before'] * 1e3:.2f} ms, after "
          f"{result['totals_s']['after'] * 1e3:.2f} ms")
    with open(args.out, "w") as out:
        json.dump(result, out, indent=1)


if __name__ == "__main__":
    main()
