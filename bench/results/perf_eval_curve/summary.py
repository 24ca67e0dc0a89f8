#!/usr/bin/env python3
"""The learning curve's table: per split and share of training operators, the mean over seeds of
xgb-efficiency-roofline-schedule's Kendall τ (all test operators, and conv2d alone), MAPE and
top-1 / top-5 mean slowdown. Reads every *.json and *.json.gz report in the folders given
(default: this one); a (split, share, seed) met twice counts once, from the first folder.

usage: summary.py [FOLDER ...]    e.g. summary.py bench/results/perf_eval_curve \
                                           bench/results/perf_eval_efficiency"""
import collections
import gzip
import json
import pathlib
import statistics
import sys

PREDICTOR = "xgb-efficiency-roofline-schedule"


def reports(folder):
    folder = pathlib.Path(folder)
    for path in sorted(folder.glob("*.json")) + sorted(folder.glob("*.json.gz")):
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt") as f:
            yield json.load(f)


def rows(folder):
    for report in reports(folder):
        fraction = report.get("train_operator_fraction", 1.0)
        for split in report["splits"]:
            for score in split["scores"]:
                if score["predictor"] != PREDICTOR:
                    continue
                conv = [k for k in score["by_kind"] if k["kind"] == "conv2d"]
                yield {
                    "split": split["split"],
                    "fraction": fraction,
                    "seed": report["seed"],
                    "train_operators": split["train_operators"],
                    "tau": score["kendall_tau"],
                    "tau_conv2d": conv[0]["kendall_tau"] if conv else float("nan"),
                    "mape": score["mape_percent"],
                    "top1": score["top1_slowdown"]["mean"],
                    "top5": score["top5_slowdown"]["mean"],
                }


def main():
    folders = sys.argv[1:] or [pathlib.Path(__file__).parent]
    groups = collections.defaultdict(list)
    seen = set()
    for folder in folders:
        for row in rows(folder):
            key = (row["split"], row["fraction"], row["seed"])
            if key not in seen:
                seen.add(key)
                groups[(row["split"], row["fraction"])].append(row)
    print("| split | share of training operators | operators trained on | seeds | τ | τ conv2d "
          "| MAPE % | top-1 mean | top-5 mean |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|")
    for (split, fraction), group in sorted(groups.items()):
        mean = lambda key: statistics.mean(r[key] for r in group)  # noqa: E731
        seeds = ",".join(str(r["seed"]) for r in sorted(group, key=lambda r: r["seed"]))
        trained = sorted({r["train_operators"] for r in group})
        print(f"| {split} | {fraction:g} | {'/'.join(map(str, trained))} | {seeds} "
              f"| {mean('tau'):.3f} | {mean('tau_conv2d'):.3f} | {mean('mape'):.1f} "
              f"| {mean('top1'):.3f} | {mean('top5'):.3f} |")


if __name__ == "__main__":
    main()
