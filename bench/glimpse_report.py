#!/usr/bin/env python3
"""The Glimpse paper's analyses (Ahn et al., DAC'22, Figs. 4-7 and Table 2) on `glimpse bench`
results, as Markdown tables and PNG figures.

    python3 bench/glimpse_report.py bench/results/full.json.gz bench/results/glimpse.json \\
        bench/results/peer_kernel_tuner.json.gz -o report.md --figures figures/glimpse

Reads one or more results files (docs/bench-results.md; merged ones from `glimpse bench
summarize` too) and recomputes everything from the runs. Performance of a time t is t_opt / t
(1.0 at the space's recorded optimum, 0 for a failure). A space is one kernel on one GPU
(`convolution_milo/A100`); its GPU is the part after the '/'.

Strategies shown: the glimpse tuner and its ablations (strategy names starting with "glimpse"),
the baselines xgb (AutoTVM's XGBoost tuner), xgb-tl (with transfer learning from the other GPUs),
chameleon and random, and Kernel Tuner's best strategy ("kt-best": the peer strategy with the
lowest median over spaces of its median measurements to 95 % of the optimum). Whatever of these
the files lack is left out; --strategies picks others. The goals of the issue are judged for
--subject (default: glimpse), when the files hold its runs.

Definitions (all medians are over the runs, i.e. seeds, of one space first, then over spaces):
- measurements to 95 %: the first measurement whose best-so-far performance is >= 0.95 (relative
  tolerance 1e-9); a run that never gets there counts at its budget (docs/bench-results.md).
- failed fraction: failed measurements / measurements, where a configuration missing from a
  partial recording (a run's `not_recorded`, absent = 0 in older files) is a hole in the data,
  not a failed measurement. The failure ratio of two strategies is
  their pooled failed fractions (all failures / all measurements, over every run of every space
  both ran), so that spaces without failures do not divide by zero.
- simulated time: recorded compile + benchmark seconds of the measurements (the runs'
  `simulated_s`, `best_curve`).
Standard library + NumPy/matplotlib for the figures (--no-figures: Markdown only).
"""
import argparse
import gzip
import json
import math
import os
import statistics
import sys

TOLERANCE = 1e-9
TARGET = 0.95
BASELINES = ["xgb", "xgb-tl", "chameleon", "random"]
PEER_TOOL = "kernel_tuner"
PEER_LABEL = "kt-best"


# ------------------------------------------------------------------------------------------------
# Loading


def load(paths):
    """Spaces by id (the first file that has a space wins) and every run, each run labelled."""
    spaces, runs, seen = {}, [], {}
    for path in paths:
        with open(path, "rb") as f:
            compressed = f.read(2) == b"\x1f\x8b"  # the content decides, as in glimpse
        with (gzip.open if compressed else open)(path, "rt", encoding="utf-8") as f:
            data = json.load(f)
        if data.get("schema") != "glimpse-bench-results/1":
            raise SystemExit(f"{path}: not a glimpse-bench-results/1 file "
                             f"(schema {data.get('schema')!r})")
        default_budget = data.get("settings", {}).get("max_measurements")
        for space in data["spaces"]:
            spaces.setdefault(space["id"], space)
        for run in data["runs"]:
            key = (run["space"], run["tool"], run["strategy"], run["seed"])
            if key in seen:
                raise SystemExit(f"run {' '.join(map(str, key))} is in both {seen[key]} and "
                                 f"{path}; pass each run once")
            seen[key] = path
            run = dict(run)
            run.setdefault("max_measurements", default_budget)
            runs.append(run)
    for run in runs:
        if run["space"] not in spaces:
            raise SystemExit(f"run of space {run['space']!r} without its space entry")
    return spaces, runs


def label(run):
    return run["strategy"] if run["tool"] == "glimpse" else f"{run['tool']}:{run['strategy']}"


def device_of(space_id):
    return space_id.split("/", 1)[1] if "/" in space_id else space_id


def group_of(space_id):
    return space_id.split("/", 1)[0]


# ------------------------------------------------------------------------------------------------
# Per-run metrics


def run_budget(run):
    """What a run that never reaches a fraction counts at (docs/bench-results.md)."""
    if "exhaust" in str(run.get("stop_reason", "")) or run.get("max_measurements") is None:
        return run["measurements"]
    return run["max_measurements"]


def kernel_failures(run):
    """Failed measurements less the configurations a partial recording lacks (not failures)."""
    return run["failed"] - run.get("not_recorded", 0)


def performance_points(run, optimum_s):
    """[(measurement, simulated_s, best performance so far)] at every improvement."""
    return [(m, s, optimum_s / t) for m, s, t in run["best_curve"]]


def measurements_to(run, optimum_s, fraction=TARGET):
    """(count, reached): the first measurement at >= fraction, or the run's budget."""
    for m, _s, perf in performance_points(run, optimum_s):
        if perf >= fraction * (1.0 - TOLERANCE):
            return m, True
    return run_budget(run), False


def simulated_to(run, optimum_s, fraction=TARGET):
    for _m, s, perf in performance_points(run, optimum_s):
        if perf >= fraction * (1.0 - TOLERANCE):
            return s, True
    return run["simulated_s"], False


def performance_at(run, optimum_s, k):
    """Best-so-far performance after k measurements (0 before the first success)."""
    best = 0.0
    for m, _s, perf in performance_points(run, optimum_s):
        if m <= k:
            best = max(best, perf)
    return best


def performance_at_time(run, optimum_s, seconds):
    best = 0.0
    for _m, s, perf in performance_points(run, optimum_s):
        if s <= seconds:
            best = max(best, perf)
    return best


def median(values):
    values = [float(v) for v in values if v is not None]
    return statistics.median(values) if values else None


# ------------------------------------------------------------------------------------------------
# The analyses


class Report:
    def __init__(self, spaces, runs, strategies=None, subject="glimpse"):
        self.spaces = spaces
        self.by = {}  # label -> space id -> [runs]
        for run in runs:
            self.by.setdefault(label(run), {}).setdefault(run["space"], []).append(run)
        self.peer_best = self._peer_best()
        if self.peer_best:
            self.by[PEER_LABEL] = self.by[self.peer_best]
        if strategies:
            unknown = [s for s in strategies if s not in self.by]
            if unknown:
                raise SystemExit(f"no runs of strategy {', '.join(unknown)}; the files hold: "
                                 f"{', '.join(sorted(self.by))}")
            self.strategies = list(strategies)
        else:
            ours = sorted(s for s in self.by if s.startswith("glimpse"))
            ours.sort(key=lambda s: (s != "glimpse", s))
            self.strategies = ours + [s for s in BASELINES + [PEER_LABEL] if s in self.by]
        self.subject = subject
        self.space_ids = [s for s in spaces if any(s in self.by[x] for x in self.strategies)]

    # -- helpers ---------------------------------------------------------------------------------

    def _peer_best(self):
        peers = [s for s in self.by if s.startswith(PEER_TOOL + ":")]
        if not peers:
            return None
        return min(peers, key=lambda s: (self.median_m95(s)[0], s))

    def runs(self, strategy, space_id):
        return self.by.get(strategy, {}).get(space_id, [])

    def per_space(self, strategy, metric):
        """{space id: median over runs of metric(run, optimum_s)} for the spaces it ran."""
        out = {}
        for space_id, runs in self.by.get(strategy, {}).items():
            optimum = self.spaces[space_id]["optimum_s"]
            out[space_id] = median([metric(r, optimum) for r in runs])
        return out

    def m95(self, strategy):
        return self.per_space(strategy, lambda r, o: measurements_to(r, o)[0])

    def median_m95(self, strategy):
        per = self.m95(strategy)
        return median(per.values()), len(per)

    def not_reached(self, strategy, space_id=None):
        spaces = [space_id] if space_id else self.by.get(strategy, {})
        runs = [r for s in spaces for r in self.runs(strategy, s)]
        missed = sum(1 for r in runs
                     if not measurements_to(r, self.spaces[r["space"]]["optimum_s"])[1])
        return missed, len(runs)

    def ratio_stats(self, numerator, denominator, metric):
        """Median over common spaces of metric[numerator] / metric[denominator], and the ratio
        of the medians over those spaces."""
        a, b = metric(numerator), metric(denominator)
        common = [s for s in a if s in b and a[s] and b[s]]
        if not common:
            return None, None
        per_space = median([a[s] / b[s] for s in common])
        of_medians = median([a[s] for s in common]) / median([b[s] for s in common])
        return per_space, of_medians

    def pooled_failed(self, strategy, spaces=None):
        failed = measured = 0
        for space_id, runs in self.by.get(strategy, {}).items():
            if spaces is not None and space_id not in spaces:
                continue
            failed += sum(kernel_failures(r) for r in runs)
            measured += sum(r["measurements"] for r in runs)
        return failed / measured if measured else None

    # -- Fig. 4: first batch ----------------------------------------------------------------------

    def first_batch_curve(self, strategy, space_id):
        """Per rank (0 = best), the median over runs of the run's sorted first-batch performance."""
        batches = [sorted(r.get("first_batch_performance") or [], reverse=True)
                   for r in self.runs(strategy, space_id)]
        # A run's first batch can be shorter than the study's (a peer that repeats configurations):
        # each rank takes the runs that have it.
        length = max((len(b) for b in batches), default=0)
        return [statistics.median(b[i] for b in batches if len(b) > i) for i in range(length)]

    def first_batch_median_curve(self, strategy):
        curves = [c for c in (self.first_batch_curve(strategy, s) for s in self.space_ids) if c]
        length = max((len(c) for c in curves), default=0)
        return [statistics.median(c[i] for c in curves if len(c) > i) for i in range(length)]

    def first_batch_failed(self, strategy):
        values = [p for runs in self.by.get(strategy, {}).values() for r in runs
                  for p in (r.get("first_batch_performance") or [])]
        return sum(1 for p in values if p <= 0.0) / len(values) if values else None

    # -- goal (c) ----------------------------------------------------------------------------------

    def within_first(self, strategy, k=10):
        """Per GPU: (spaces whose median run is within 95 % by measurement k, spaces)."""
        per = self.m95(strategy)
        out = {}
        for space_id, m in per.items():
            hit, total = out.get(device_of(space_id), (0, 0))
            out[device_of(space_id)] = (hit + (1 if m <= k else 0), total + 1)
        return out


# ------------------------------------------------------------------------------------------------
# Markdown


def fmt(value, digits=3):
    if value is None:
        return "-"
    if isinstance(value, float) and math.isinf(value):
        return "∞"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer() and digits == 0):
        return str(int(value))
    return f"{value:.{digits}f}"


def ratio(a, b):
    if a is None or b is None:
        return None
    if b == 0:
        return math.inf if a > 0 else None
    return a / b


def table(header, rows, align=None):
    align = align or ["---"] + ["---:"] * (len(header) - 1)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def representative_spaces(report, wanted):
    if wanted:
        missing = [s for s in wanted if s not in report.spaces]
        if missing:
            raise SystemExit(f"unknown space {', '.join(missing)}; known: "
                             f"{', '.join(report.space_ids)}")
        return wanted
    chosen, groups = [], set()
    for space_id in report.space_ids:  # the first space of every group
        if group_of(space_id) not in groups:
            groups.add(group_of(space_id))
            chosen.append(space_id)
    return chosen


def markdown(report, args, figures):
    s = report.strategies
    out = ["# Glimpse evaluation: the paper's analyses on the recorded spaces", ""]
    out.append(f"Results: {', '.join(args.results)}. {len(report.space_ids)} spaces "
               f"(kernel × GPU), strategies: {', '.join(s)}.")
    if report.peer_best:
        out.append(f"`{PEER_LABEL}` is Kernel Tuner's `{report.peer_best.split(':', 1)[1]}`, its "
                   f"strategy with the lowest median measurements to 95 %.")
    out.append("")

    # Goals.
    out += ["## The issue's goals", ""]
    subject = report.subject
    if subject not in report.by:
        out += [f"No runs of `{subject}` in these files: the goals are judged once they exist.", ""]
    else:
        goal_rows = []
        m_subject, n_subject = report.median_m95(subject)
        if "xgb" in report.by:
            m_xgb, _ = report.median_m95("xgb")
            per_space, _ = report.ratio_stats("xgb", subject, report.m95)
            r = ratio(m_xgb, m_subject)
            goal_rows.append([
                "(a) measurements to 95 %: xgb ÷ " + subject + " (median over spaces)",
                f"{fmt(m_xgb, 1)} ÷ {fmt(m_subject, 1)} = {fmt(r, 2)}; median per-space ratio "
                f"{fmt(per_space, 2)}", "≥ 5", "yes" if r is not None and r >= 5 else "no"])
            f_xgb = report.pooled_failed("xgb", report.by[subject])
            f_subject = report.pooled_failed(subject, report.by["xgb"])
            r = ratio(f_xgb, f_subject)
            goal_rows.append([
                "(b) failed measurements: xgb ÷ " + subject + " (pooled failed fractions)",
                f"{fmt(f_xgb, 4)} ÷ {fmt(f_subject, 4)} = {fmt(r, 2)}", "≥ 5",
                "yes" if r is not None and r >= 5 else "no"])
            if args.failures_without:
                kept = [x for x in report.by[subject] if x not in args.failures_without]
                f_xgb = report.pooled_failed("xgb", kept)
                f_subject = report.pooled_failed(subject, kept)
                r = ratio(f_xgb, f_subject)
                goal_rows.append([
                    "(b') the same without " + ", ".join(args.failures_without),
                    f"{fmt(f_xgb, 4)} ÷ {fmt(f_subject, 4)} = {fmt(r, 2)}", "≥ 5",
                    "yes" if r is not None and r >= 5 else "no"])
        hits = report.within_first(subject, args.first_k)
        good = [gpu for gpu, (hit, total) in hits.items() if hit * 2 > total]
        goal_rows.append([
            f"(c) held-out GPUs with 95 % within the first {args.first_k} measurements",
            f"{len(good)} of {len(hits)} ({', '.join(sorted(good)) or 'none'})", "-", "-"])
        out.append(table(["goal", "value", "target", "met"], goal_rows,
                         ["---", "---", "---", "---"]))
        out += ["", f"(c) counts a GPU when, on more than half of its spaces, the median run of "
                f"`{subject}` (over seeds) reaches 95 % of the optimum within its first "
                f"{args.first_k} measurements. Per GPU (spaces within / spaces):", ""]
        out.append(table(["GPU", "spaces within"],
                         [[gpu, f"{hit} / {total}"] for gpu, (hit, total) in sorted(hits.items())],
                         ["---", "---:"]))
        out.append("")

    # Fig. 4.
    out += ["## First batch (paper Fig. 4)", "",
            "Performance of the first batch's measurements (the first "
            f"{args.first_batch} measurements of a run), sorted best first: per rank, the median "
            "over runs, then over spaces; failures count 0. `failed`: the fraction of all "
            "first-batch measurements that failed.", ""]
    ranks = [1, 5, 10, 16, 32, 64]
    rows = []
    for strategy in s:
        curve = report.first_batch_median_curve(strategy)
        rows.append([strategy] + [fmt(curve[r - 1]) if len(curve) >= r else "-" for r in ranks]
                    + [fmt(report.first_batch_failed(strategy))])
    out.append(table(["strategy"] + [f"rank {r}" for r in ranks] + ["failed"], rows))
    for space_id in representative_spaces(report, args.space):
        rows = []
        for strategy in s:
            curve = report.first_batch_curve(strategy, space_id)
            rows.append([strategy] + [fmt(curve[r - 1]) if len(curve) >= r else "-"
                                      for r in ranks])
        out += ["", f"{space_id}:", "", table(["strategy"] + [f"rank {r}" for r in ranks], rows)]
    out += figures.get("fig4", [])
    out.append("")

    # Fig. 5.
    out += ["## Quality at a fixed budget (paper Fig. 5)", "",
            "Best performance found within k measurements, and within a simulated time (compile "
            "+ benchmark seconds), median over runs then over spaces; the ratio columns divide "
            "the strategy's per-space median by xgb-tl's and xgb's (median over spaces).", ""]
    def quality_table(budgets, at, name):
        """One row per strategy: per budget the median quality and its ratios to the bases."""
        header, rows = ["strategy"], []
        for budget in budgets:
            header += [name(budget), "÷ xgb-tl", "÷ xgb"]
        for strategy in s:
            row = [strategy]
            for budget in budgets:
                def metric(label, budget=budget):
                    return report.per_space(label, lambda r, o: at(r, o, budget))
                row.append(fmt(median(metric(strategy).values())))
                for base in ["xgb-tl", "xgb"]:
                    row.append(fmt(report.ratio_stats(strategy, base, metric)[0], 2)
                               if base in report.by else "-")
            rows.append(row)
        return table(header, rows)

    out.append(quality_table(args.budgets, performance_at, lambda k: f"@{k}"))
    out += ["", quality_table(args.seconds, performance_at_time,
                              lambda t: f"@{fmt(t, 0)} s")]
    out += figures.get("fig5", [])
    out.append("")

    # Fig. 6.
    out += ["## Measurements to 95 % of the optimum (paper Fig. 6)", "",
            "Median over spaces of the per-space median (over runs); runs that never get there "
            "count at their budget (not reached: runs / all runs). Speed-up = xgb's ÷ the "
            "strategy's, as the median of per-space ratios and as the ratio of the medians.", ""]
    rows = []
    for strategy in s:
        m, n = report.median_m95(strategy)
        missed, total = report.not_reached(strategy)
        per_space, of_medians = (report.ratio_stats("xgb", strategy, report.m95)
                                 if "xgb" in report.by else (None, None))
        rows.append([strategy, n, fmt(m, 1), f"{missed} / {total}", fmt(per_space, 2),
                     fmt(of_medians, 2)])
    out.append(table(["strategy", "spaces", "median measurements", "not reached",
                      "speed-up vs xgb (per space)", "(of medians)"], rows))
    groups = sorted({group_of(x) for x in report.space_ids})
    rows = []
    for strategy in s:
        per = report.m95(strategy)
        rows.append([strategy] + [fmt(median([v for k, v in per.items() if group_of(k) == g]), 1)
                                  for g in groups])
    out += ["", "Per kernel (median over its GPUs):", "",
            table(["strategy"] + groups, rows)]
    out += figures.get("fig6", [])
    out.append("")

    # Fig. 7.
    out += ["## Failed measurements (paper Fig. 7)", "",
            "Pooled failed fraction (all failed / all measurements, every run of every space; "
            "configurations a partial recording lacks are not failures, see the runs' "
            "`not_recorded`); "
            "the ratios divide xgb's and chameleon's pooled fraction, on the spaces both ran, by "
            "the strategy's (higher = fewer failures than the baseline). `mean over failing "
            "spaces`: the mean, over the spaces where any shown strategy had a failure, of the "
            "per-space median failed fraction.", ""]
    failing = [x for x in report.space_ids
               if any(kernel_failures(r) for st in s for r in report.runs(st, x))]
    rows = []
    for strategy in s:
        own = report.by.get(strategy, {})
        row = [strategy, fmt(report.pooled_failed(strategy), 4)]
        per = report.per_space(strategy, lambda r, o: kernel_failures(r) / r["measurements"]
                               if r["measurements"] else 0.0)
        values = [per[x] for x in failing if x in per]
        row.append(fmt(sum(values) / len(values), 4) if values else "-")
        for base in ["xgb", "chameleon"]:
            if base in report.by:
                row.append(fmt(ratio(report.pooled_failed(base, own),
                                     report.pooled_failed(strategy, report.by[base])), 2))
            else:
                row.append("-")
        rows.append(row)
    out.append(table(["strategy", "failed (pooled)", "mean over failing spaces",
                      "xgb ÷ strategy", "chameleon ÷ strategy"], rows))
    if args.failures_without:
        out += ["", "Without " + ", ".join(args.failures_without) + " (`--failures-without`):",
                ""]
        rows = []
        for strategy in s:
            kept = [x for x in report.by.get(strategy, {}) if x not in args.failures_without]
            row = [strategy, fmt(report.pooled_failed(strategy, kept), 4)]
            for base in ["xgb", "chameleon"]:
                if base in report.by:
                    common = [x for x in kept if x in report.by[base]]
                    row.append(fmt(ratio(report.pooled_failed(base, common),
                                         report.pooled_failed(strategy, common)), 2))
                else:
                    row.append("-")
            rows.append(row)
        out.append(table(["strategy", "failed (pooled)", "xgb ÷ strategy",
                          "chameleon ÷ strategy"], rows))
    out += figures.get("fig7", [])
    out.append("")

    # Table 2.
    out += ["## Search time to 95 % (paper Table 2)", "",
            "Simulated seconds (recorded compile + benchmark time of the measurements, Rieber's "
            "presampling checks included where a strategy makes them) until the best-so-far "
            "performance reaches 95 %; per space the median over runs (a run that never gets "
            "there counts at its total). Per kernel: the sum over its GPUs; reduction = the "
            "baseline's time ÷ the strategy's.", ""]
    per = {st: report.per_space(st, lambda r, o: simulated_to(r, o)[0]) for st in s}
    header = ["strategy"] + groups + ["all (sum)", "median over spaces", "÷ xgb", "÷ chameleon"]
    rows = []
    for strategy in s:
        row = [strategy]
        for g in groups:
            values = [v for k, v in per[strategy].items() if group_of(k) == g]
            row.append(fmt(sum(values), 1) if values else "-")
        row.append(fmt(sum(per[strategy].values()), 1))
        row.append(fmt(median(per[strategy].values()), 1))
        for base in ["xgb", "chameleon"]:
            if base in report.by:
                base_times = report.per_space(base, lambda r, o: simulated_to(r, o)[0])
                common = [x for x in per[strategy] if x in base_times]
                row.append(fmt(ratio(sum(base_times[x] for x in common),
                                     sum(per[strategy][x] for x in common)), 2))
            else:
                row.append("-")
        rows.append(row)
    out.append(table(header, rows))
    out.append("")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------------------
# Figures


def draw_figures(report, args, markdown_dir):
    """Writes the PNGs; returns the Markdown lines that show them, per figure."""
    import matplotlib

    matplotlib.use("Agg")  # files only
    import matplotlib.pyplot as plt

    prefix = args.figures
    os.makedirs(os.path.dirname(os.path.abspath(prefix)), exist_ok=True)
    links = {}

    def save(fig, name, caption):
        path = f"{prefix}_{name}.png"
        fig.tight_layout()
        fig.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(fig)
        rel = os.path.relpath(path, markdown_dir)
        links[name.split("_")[0]] = ["", f"![{caption}]({rel})"]

    strategies = report.strategies
    spaces = representative_spaces(report, args.space)
    panels = spaces + ["median over all spaces"]
    columns = min(3, len(panels))
    rows = math.ceil(len(panels) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.6 * columns, 3.0 * rows), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for index, (ax, panel) in enumerate(zip(axes.flat, panels)):
        for strategy in strategies:
            curve = (report.first_batch_median_curve(strategy) if panel == panels[-1]
                     else report.first_batch_curve(strategy, panel))
            if curve:
                ax.plot(range(1, len(curve) + 1), curve, label=strategy)
        ax.set_title(panel, fontsize=9)
        ax.set_xlabel("rank in the first batch")
        ax.set_ylim(0, 1.02)
        if index % columns == 0:
            ax.set_ylabel("performance (t_opt / t)")
    axes.flat[len(panels) - 1].legend(fontsize=7)
    save(fig, "fig4_first_batch", "first batch, sorted")

    fig, axes = plt.subplots(1, len(args.budgets), figsize=(3.2 * len(args.budgets), 3.0),
                             squeeze=False)
    for ax, k in zip(axes[0], args.budgets):
        values = [median(report.per_space(st, lambda r, o: performance_at(r, o, k)).values())
                  or 0.0 for st in strategies]
        ax.bar(range(len(strategies)), values)
        ax.set_xticks(range(len(strategies)), strategies, rotation=60, ha="right", fontsize=7)
        ax.set_title(f"after {k} measurements", fontsize=9)
        ax.set_ylim(0, 1.02)
    axes[0][0].set_ylabel("median best performance")
    save(fig, "fig5_quality", "quality at fixed budgets")

    fig, ax = plt.subplots(figsize=(6, 3.2))
    values = [report.median_m95(st)[0] or 0.0 for st in strategies]
    ax.bar(range(len(strategies)), values)
    ax.set_xticks(range(len(strategies)), strategies, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("measurements to 95 % (median)")
    save(fig, "fig6_measurements", "measurements to 95 %")

    fig, ax = plt.subplots(figsize=(6, 3.2))
    values = [report.pooled_failed(st) or 0.0 for st in strategies]
    ax.bar(range(len(strategies)), values)
    ax.set_xticks(range(len(strategies)), strategies, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("failed fraction (pooled)")
    save(fig, "fig7_failed", "failed fraction")
    return links


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="results files (JSON)")
    parser.add_argument("-o", "--output", default="-", help="Markdown to write (- = stdout)")
    parser.add_argument("--figures", help="PNG path prefix (PREFIX_fig4_first_batch.png, …); "
                        "default: beside --output, named after it")
    parser.add_argument("--no-figures", action="store_true", help="Markdown only")
    parser.add_argument("--strategies", nargs="+", help="strategy labels to show (tool:strategy "
                        f"for other tools, {PEER_LABEL} for Kernel Tuner's best)")
    parser.add_argument("--subject", default="glimpse", help="strategy the goals are judged for")
    parser.add_argument("--space", action="append", help="space shown in Fig. 4 (repeatable; "
                        "default: the first of every kernel)")
    parser.add_argument("--budgets", type=int, nargs="+", default=[10, 25, 50],
                        help="measurement budgets of Fig. 5")
    parser.add_argument("--seconds", type=float, nargs="+", default=[30.0, 100.0, 300.0],
                        help="simulated-time budgets of Fig. 5 (s)")
    parser.add_argument("--seeds", type=int, help="only the runs of seeds 0 .. SEEDS-1 (to "
                        "compare with a study of fewer seeds on the same runs)")
    parser.add_argument("--first-k", type=int, default=10, help="goal (c)'s measurement count")
    parser.add_argument("--failures-without", action="append", default=[], metavar="SPACE",
                        help="also give goal (b) and Fig. 7 without this space (repeatable), "
                        "e.g. one whose file lacks configurations that then replay as failures")
    args = parser.parse_args(argv)

    spaces, runs = load(args.results)
    if args.seeds is not None:
        runs = [r for r in runs if r["seed"] < args.seeds]
    report = Report(spaces, runs, args.strategies, args.subject)
    args.first_batch = max((len(r.get("first_batch_performance") or []) for r in runs),
                           default=0)
    figures = {}
    if not args.no_figures:
        if args.figures is None:
            if args.output == "-":
                parser.error("--figures PREFIX is needed when the Markdown goes to stdout")
            args.figures = os.path.splitext(args.output)[0]
        try:
            markdown_dir = (os.path.dirname(os.path.abspath(args.output)) if args.output != "-"
                            else os.getcwd())
            figures = draw_figures(report, args, markdown_dir)
        except ImportError as error:
            print(f"no figures: {error} (pip install -r bench/requirements.txt)", file=sys.stderr)
    text = markdown(report, args, figures)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        tmp = args.output + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
