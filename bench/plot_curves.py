#!/usr/bin/env python3
"""Median best-so-far curves of a `glimpse bench` results file: one subplot per space, one line
per (tool, strategy) with its inter-quartile range shaded.

    python3 bench/plot_curves.py results.json [more.json ...] -o curves.png [--log-x]

Performance is t_opt / t of the best time so far (1.0 at the space's recorded optimum, 0 before
the first successful measurement), as in docs/bench-results.md. Several files (ours and the Kernel
Tuner peer's) are drawn together; a space's optimum is taken from the first file that has it.
"""
import argparse
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def load(paths):
    spaces, runs = {}, []
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        if data.get("schema") != "glimpse-bench-results/1":
            sys.exit(f"{path}: not a glimpse-bench-results/1 file")
        for space in data["spaces"]:
            spaces.setdefault(space["id"], space)
        runs.extend(data["runs"])
    return spaces, runs


def performance_curve(run, optimum_s, length):
    """Best-so-far performance after 1..length measurements."""
    curve = np.zeros(length)
    for measurement, _simulated_s, best_time_s in run["best_curve"]:
        if measurement <= length:
            curve[measurement - 1:] = optimum_s / best_time_s
    return curve


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="results files (JSON)")
    parser.add_argument("-o", "--output", default="curves.png", help="PNG to write")
    parser.add_argument("--log-x", action="store_true", help="logarithmic measurement axis")
    parser.add_argument("--columns", type=int, default=3, help="subplots per row")
    args = parser.parse_args()

    spaces, runs = load(args.results)
    by_space = {}
    for run in runs:
        by_space.setdefault(run["space"], {}).setdefault(
            (run["tool"], run["strategy"]), []).append(run)
    ids = [space_id for space_id in spaces if space_id in by_space]
    if not ids:
        sys.exit("no runs to plot")

    columns = min(args.columns, len(ids))
    rows = math.ceil(len(ids) / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(5.2 * columns, 3.8 * rows),
                                squeeze=False)
    series = sorted({key for space_id in ids for key in by_space[space_id]})
    colours = plt.get_cmap("tab20" if len(series) > 10 else "tab10")
    colour_of = {key: colours(i % colours.N) for i, key in enumerate(series)}
    styles = {"glimpse": "-", "kernel_tuner": "--"}

    for index, space_id in enumerate(ids):
        axis = axes[index // columns][index % columns]
        optimum_s = spaces[space_id]["optimum_s"]
        for key in sorted(by_space[space_id]):
            group = by_space[space_id][key]
            length = max(run["measurements"] for run in group)
            if length == 0:
                continue
            curves = np.array([performance_curve(run, optimum_s, length) for run in group])
            x = np.arange(1, length + 1)
            q1, median, q3 = np.percentile(curves, [25, 50, 75], axis=0)
            label = f"{key[0]} {key[1]}"
            axis.plot(x, median, styles.get(key[0], ":"), color=colour_of[key], label=label,
                      linewidth=1.4)
            axis.fill_between(x, q1, q3, color=colour_of[key], alpha=0.15, linewidth=0)
        device = spaces[space_id].get("device") or ""
        axis.set_title(f"{space_id}\n{device}", fontsize=9)
        axis.set_ylim(0, 1.02)
        axis.grid(True, alpha=0.3)
        if args.log_x:
            axis.set_xscale("log")
        if index % columns == 0:
            axis.set_ylabel("best performance (t_opt / t)")
        if index // columns == rows - 1:
            axis.set_xlabel("measurements")
    for index in range(len(ids), rows * columns):
        axes[index // columns][index % columns].axis("off")

    handles, labels = axes[0][0].get_legend_handles_labels()
    seen = set(labels)
    for row in axes:
        for axis in row:
            for handle, label in zip(*axis.get_legend_handles_labels()):
                if label not in seen:
                    seen.add(label)
                    handles.append(handle)
                    labels.append(label)
    figure.legend(handles, labels, loc="lower center", ncol=min(len(labels), 6), fontsize=8,
                  frameon=False)
    figure.suptitle("Median best-so-far performance over seeds (shaded: inter-quartile range)",
                    fontsize=10)
    legend_rows = math.ceil(len(labels) / 6)
    figure.tight_layout(rect=(0, 0.04 + 0.035 * legend_rows / rows, 1, 0.97))
    figure.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
