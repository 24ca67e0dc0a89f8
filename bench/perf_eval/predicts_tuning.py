#!/usr/bin/env python3
"""Do a model's offline scores predict how well it tunes? (docs/perf-eval.md)

  predicts_tuning.py --summary STUDY/summary.json --strategy xgb-transfer=xgb.json \
      [--strategy xgb-transfer@rank=xgb-rank.json …] --eval LABEL=REPORT.json [--eval …] \
      [--budgets 8,16]

Joins a tuning study (bench/perf_tuning/study.py summarize --json) with reports of
`glimpse perf-model evaluate --per-operator --json` that scored the same model files
(predictor `file:PATH`). For each (operator, model) the study gives the quality after N
measurements (best known / best so far, median over seeds) and each report gives the model's
Kendall tau, top-1 and top-5 quality (1 / slowdown) on that operator's records. It prints how
well each offline score orders the pairs by their tuning quality:

  - Spearman's rho over every (operator, model) pair;
  - Kendall's tau-b across the models within each operator, averaged over operators (does the
    score pick the better model for a given operator?).

A score that predicts tuning has both near 1. --strategy maps a study strategy to the model file
it tuned with (matched by file name, so reports made in other folders still join).
"""

import argparse
import json
import os
import sys

# The evaluation's τ-b, shared with the noise ceiling (this folder's noise_ceiling.py).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from noise_ceiling import kendall_tau_b  # noqa: E402

SCORES = ("tau", "top1", "top5")


def ranks(values):
    """Average ranks (ties share the mean of their positions), 0-based."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2.0
        i = j + 1
    return out


def spearman(a, b):
    """Spearman's rho: Pearson's correlation of the ranks; None when a side is constant."""
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    if n < 2:
        return None
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    if va == 0 or vb == 0:
        return None
    return cov / (va * vb) ** 0.5


def per_operator_scores(report):
    """{(op, model file name): {tau, top1, top5}} from a per-operator evaluation report."""
    out = {}
    for split in report["splits"]:
        for score in split["scores"]:
            predictor = score["predictor"]
            if not predictor.startswith("file:"):
                continue
            if "by_operator" not in score:
                raise SystemExit(f"predicts_tuning: the report has no by_operator "
                                 f"(run perf-model evaluate with --per-operator)")
            name = os.path.basename(predictor[len("file:"):])
            for entry in score["by_operator"]:
                out[(entry["op"], name)] = {
                    "tau": entry["kendall_tau"],
                    "top1": 1.0 / entry["top1_slowdown"]["mean"],
                    "top5": 1.0 / entry["top5_slowdown"]["mean"],
                }
    return out


def join(summary, strategies, evals, budgets):
    """Rows of (operator, strategy, model, quality at each budget, each report's scores)."""
    rows = []
    for op, entry in summary["operators"].items():
        for strategy, model in strategies.items():
            tuned = entry["strategies"].get(strategy)
            if tuned is None:
                raise SystemExit(f"predicts_tuning: the study has no strategy '{strategy}' "
                                 f"for {op}")
            row = {"op": op, "strategy": strategy, "model": model}
            for budget in budgets:
                row[f"q{budget}"] = tuned["quality_at"][str(budget)]
            complete = True
            for label, scores in evals.items():
                found = scores.get((op, model))
                if found is None or found["tau"] is None:
                    complete = False
                    break
                for score in SCORES:
                    row[f"{label}:{score}"] = found[score]
            if complete and all(row[f"q{b}"] is not None for b in budgets):
                rows.append(row)
    return rows


def agreement(rows, score_key, quality_key):
    """(Spearman over all rows, mean within-operator Kendall across models, operators used)."""
    rho = spearman([r[score_key] for r in rows], [r[quality_key] for r in rows])
    within = []
    for op in sorted({r["op"] for r in rows}):
        mine = [r for r in rows if r["op"] == op]
        k = kendall_tau_b([r[score_key] for r in mine], [r[quality_key] for r in mine])
        if k is not None:
            within.append(k)
    mean = sum(within) / len(within) if within else None
    return rho, mean, len(within)


def fmt(x):
    return "—" if x is None else f"{x:+.2f}"


def report(rows, evals, budgets):
    lines = [f"{len(rows)} (operator, model) pairs, "
             f"{len({r['op'] for r in rows})} operators", "",
             "| offline score | " + " | ".join(
                 f"Spearman vs q@{b} | within-operator Kendall vs q@{b}" for b in budgets) + " |",
             "|---|" + "---|---|" * len(budgets)]
    for label in evals:
        for score in SCORES:
            cells = []
            for b in budgets:
                rho, within, _ = agreement(rows, f"{label}:{score}", f"q{b}")
                cells += [fmt(rho), fmt(within)]
            lines.append(f"| {label} {score} | " + " | ".join(cells) + " |")
    lines += ["", "| operator | model | " + " | ".join(f"q@{b}" for b in budgets) + " | " +
              " | ".join(f"{label} {s}" for label in evals for s in SCORES) + " |",
              "|---|---|" + "---|" * (len(budgets) + len(evals) * len(SCORES))]
    for r in rows:
        lines.append(f"| `{r['op']}` | {r['model']} | " +
                     " | ".join(f"{r[f'q{b}']:.2f}" for b in budgets) + " | " +
                     " | ".join(f"{r[f'{label}:{s}']:.2f}" for label in evals for s in SCORES) +
                     " |")
    return "\n".join(lines) + "\n"


def pairs(values, what):
    out = {}
    for value in values:
        if "=" not in value:
            raise SystemExit(f"predicts_tuning: {what} '{value}' is not NAME=PATH")
        name, path = value.split("=", 1)
        out[name] = path
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--summary", required=True, help="study.py summarize --json output")
    parser.add_argument("--strategy", action="append", required=True,
                        help="STRATEGY=MODEL.json: the model file a study strategy tuned with")
    parser.add_argument("--eval", action="append", required=True,
                        help="LABEL=REPORT.json: perf-model evaluate --per-operator --json")
    parser.add_argument("--budgets", default="8,16", help="measurement counts to compare with")
    args = parser.parse_args(argv)
    with open(args.summary) as f:
        summary = json.load(f)
    strategies = {s: os.path.basename(p) for s, p in pairs(args.strategy, "--strategy").items()}
    evals = {}
    for label, path in pairs(args.eval, "--eval").items():
        with open(path) as f:
            evals[label] = per_operator_scores(json.load(f))
    budgets = [int(b) for b in args.budgets.split(",")]
    rows = join(summary, strategies, evals, budgets)
    if not rows:
        raise SystemExit("predicts_tuning: no (operator, model) pair is in the study and every "
                         "report")
    sys.stdout.write(report(rows, evals, budgets))


if __name__ == "__main__":
    main()
