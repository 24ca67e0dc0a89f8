#!/usr/bin/env python3
"""Each run's pick beside oneDNN, layer by layer, in alternating processes over several rounds.

For each operator of --tasks: each run's fastest ok configuration (as cpu_remeasure_runs.py takes
its top 1) is measured by bench_cpu_templates in one process, and oneDNN's blocked primitive by
cpu_baselines in another, right after or right before — the order rotated every round — for
--rounds rounds. With --bench given more than once (LABEL=PATH), the picks are measured by each
of those builds in its own process, in the same rotation: a change to the generated code, before
and after, beside the library. A side's time is its fastest round; the table gives both that ratio (oneDNN's
fastest / the run's fastest) and the median of the rounds' own ratios, with geometric means over
the convolutions.

Why: this guest's speed moves between processes and minutes (clock, a neighbour on the host's
other CPU, a per-process slow mode), by more than the differences measured here. Re-measuring a
whole model's picks first and the library's primitives afterwards (cpu_remeasure_runs.py, then
cpu_baselines) puts every layer's two figures minutes apart; here they are seconds apart, and
each side gets the same number of tries at a quiet moment.

  bench/cpu_alternate_vs_onednn.py --run after=after.db --tasks vgg16_conv_tasks.txt \\
      --rounds 5 --threads 2 --bench build/ci/bench/bench_cpu_templates \\
      --baselines build/ci/bench/cpu_baselines --out FILE.json > FILE.md
  (--bench old=/path/to/old/bench_cpu_templates --bench new=build/ci/bench/bench_cpu_templates:
  each pick measured by both builds)
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_remeasure_runs import measure, pass_order, read_tasks, top_configs  # noqa: E402
from cpu_remeasure_top import canonical  # noqa: E402
from cpu_remeasure_vs_baselines import as_baseline, geomean, kind_of  # noqa: E402


def onednn_blocked(baselines, op, threads, scratch):
    """(seconds, FLOPs, implementation) of oneDNN's blocked primitive on `op`, one process."""
    command = [baselines, "--op", op, "--json", scratch]
    if threads:
        command += ["--threads", str(threads)]
    subprocess.run(command, check=True, capture_output=True, text=True)
    with open(scratch) as handle:
        entry = json.load(handle)["ops"][0]
    blocked = entry["results"].get("onednn_blocked", {})
    if not blocked.get("median_s"):
        raise SystemExit(f"{baselines}: no oneDNN blocked time for {op}: {blocked}")
    return blocked["median_s"], entry["flops"], blocked.get("implementation", "")


def summarize(rows, names):
    """Per run: geo-means of the two ratios over the convolutions, and the lowest of each."""
    summary = {}
    for name in names:
        convs = [r for r in rows if r["kind"] and r["ratio_fastest"].get(name)]
        fastest = [r["ratio_fastest"][name] for r in convs]
        median = [r["ratio_median"][name] for r in convs]
        summary[name] = {
            "convolutions": len(convs),
            "geomean_ratio_fastest": geomean(fastest),
            "geomean_ratio_median": geomean(median),
            "lowest_fastest": min(((v, r["op"]) for v, r in zip(fastest, convs)), default=None),
            "lowest_median": min(((v, r["op"]) for v, r in zip(median, convs)), default=None),
        }
    return summary


def parse_benches(values, parser):
    """[(label, path)]: one unlabelled --bench, or several LABEL=PATH."""
    values = values or ["build/ci/bench/bench_cpu_templates"]
    benches = []
    for text in values:
        label, sep, path = text.rpartition("=") if "=" in text else ("", "", text)
        if len(values) > 1 and not label:
            parser.error(f"--bench {text}: with several builds, each is LABEL=PATH")
        if not os.access(path, os.X_OK):
            parser.error(f"--bench {text}: {path} is not an executable "
                         "(build it: scripts/build.sh ci)")
        benches.append((label, path))
    return benches


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="append", required=True, metavar="NAME=DB")
    parser.add_argument("--tasks", required=True, help="one operator a line ('# weight N')")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="0: every CPU")
    parser.add_argument("--bench", action="append", metavar="[LABEL=]PATH",
                        help="bench_cpu_templates (default build/ci/bench/bench_cpu_templates); "
                             "repeat as LABEL=PATH to measure the picks with several builds")
    parser.add_argument("--baselines", default="build/ci/bench/cpu_baselines")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be ≥ 1")
    benches = parse_benches(args.bench, parser)
    if not os.access(args.baselines, os.X_OK):
        parser.error(f"--baselines {args.baselines}: not an executable "
                     "(build it: scripts/build.sh ci)")

    runs = []
    for text in args.run:
        name, sep, db = text.partition("=")
        if not sep or not name or not os.path.exists(db):
            parser.error(f"--run {text}: expected NAME=DB with an existing database file")
        runs.append((name, top_configs(db, 1)))
    # A column: a run's pick as one build generates it.
    names = [f"{run}@{label}" if label else run for run, _ in runs for label, _ in benches]

    result = {"runs": names, "rounds": args.rounds, "threads": args.threads,
              "benches": {label or "bench": path for label, path in benches},
              "started_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "command": " ".join(sys.argv), "operators": []}
    scratch = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    try:
        for op, weight in read_tasks(args.tasks):
            picks = [(name, per_op[canonical(op)][0]) for name, per_op in runs
                     if per_op.get(canonical(op))]
            if not picks:
                print(f"{op}: no run has an ok measurement", file=sys.stderr)
                continue
            library_op, fused = as_baseline(op)
            glimpse_s = {}
            onednn_s = []
            flops = implementation = None

            # Each distinct configuration once per process (runs that picked the same one share
            # its time), in an order rotated every round: a process's later kernels can read
            # slower than its first (the same configuration measured twice in one process read
            # 9 % apart), which a fixed order would charge to one run.
            distinct = list(dict.fromkeys(pick for _, pick in picks))
            rounds_done = {}

            def glimpse_step(label, path):
                def step():
                    index = rounds_done.get(label, 0)
                    rounds_done[label] = index + 1
                    ordered = [distinct[i] for i in pass_order(len(distinct), index)]
                    times = dict(zip(ordered, measure(path, ordered, args.threads)))
                    for run, pick in picks:
                        key = f"{run}@{label}" if label else run
                        glimpse_s.setdefault(key, []).append(times[pick])
                return step

            def onednn_step():
                nonlocal flops, implementation
                t, flops, implementation = onednn_blocked(args.baselines, library_op,
                                                          args.threads, scratch)
                onednn_s.append(t)

            steps = [glimpse_step(label, path) for label, path in benches] + [onednn_step]
            for index in range(args.rounds):
                for i in pass_order(len(steps), index):
                    steps[i]()
            entry = {"op": op, "weight": weight, "kind": kind_of(op), "fused": fused,
                     "flops": flops, "onednn_implementation": implementation,
                     "onednn_s": onednn_s, "glimpse_s": glimpse_s,
                     "configs": {name: {"operator": tuned, "config": json.loads(config)}
                                 for name, (tuned, config) in picks},
                     "ratio_fastest": {}, "ratio_median": {}}
            for name, times in glimpse_s.items():
                if any(t is None for t in times):
                    continue  # a pick that failed here is reported, not compared
                entry["ratio_fastest"][name] = min(onednn_s) / min(times)
                entry["ratio_median"][name] = statistics.median(
                    o / g for o, g in zip(onednn_s, times))
            result["operators"].append(entry)
            print(f"{op}: oneDNN {min(onednn_s) * 1e3:.3f} ms, " + ", ".join(
                f"{n} {min(t) * 1e3:.3f} ms" if None not in t else f"{n} failed"
                for n, t in glimpse_s.items()), file=sys.stderr)
    finally:
        os.unlink(scratch)

    rows = result["operators"]
    result["summary"] = summarize(rows, names)
    with open(args.out, "w") as out:
        json.dump(result, out, indent=1)

    print(f"{args.rounds} rounds, {args.threads or 'all'} threads, from "
          f"{result['started_utc']}; GFLOP/s of each side's fastest round; ratio = oneDNN time / "
          f"glimpse time (fastest / median of the rounds' ratios)\n")
    print("| operator | oneDNN (blocked) | " + " | ".join(names) + " | "
          + " | ".join(f"{n}: ratio" for n in names) + " |")
    print("|---|---:|" + "---:|" * (2 * len(names)))
    for r in rows:
        gflops = [f"{r['flops'] / min(r['glimpse_s'][n]) / 1e9:.1f}"
                  if n in r["ratio_fastest"] else "—" for n in names]
        ratios = [f"{r['ratio_fastest'][n]:.2f}× / {r['ratio_median'][n]:.2f}×"
                  if n in r["ratio_fastest"] else "—" for n in names]
        mark = " †" if r["fused"] else ""
        print(f"| `{r['op']}`{mark} | {r['flops'] / min(r['onednn_s']) / 1e9:.1f} | "
              + " | ".join(gflops) + " | " + " | ".join(ratios) + " |")
    print()
    for name, s in result["summary"].items():
        if not s["convolutions"]:
            continue
        print(f"- {name}: / oneDNN blocked over {s['convolutions']} convolutions, geo-mean "
              f"{s['geomean_ratio_fastest']:.2f}× (fastest rounds), "
              f"{s['geomean_ratio_median']:.2f}× (median of rounds); lowest "
              f"{s['lowest_fastest'][0]:.2f}× `{s['lowest_fastest'][1]}` / "
              f"{s['lowest_median'][0]:.2f}× `{s['lowest_median'][1]}`")
    if any(r["fused"] for r in rows):
        print("- †: glimpse's operator has an epilogue oneDNN's does not run "
              "(a residual add, or ReLU6 run as ReLU)")


if __name__ == "__main__":
    main()
