#!/bin/bash
# Zen 3, 2026-12-02: 16 measurements per operator in rounds of 4 on the roofline-feature model
# (hardware16), on the log-time model (hardware16-transfer), and choosing between them per
# operator (hardware16-choose). Ran with seeds 1,2,3, then 4,5,6, 7,8,9 and 10,11,12
# (08:53-10:43 UTC). The model files: ../../perf_tuning_zen3.md's training commands.
# From the repository root: bench/results/perf_tuning_zen3/rounds16/run.sh SEEDS OUT
set -e
SEEDS=${1:-1,2,3}
OUT=${2:-build/study-zen3/rounds16}
bench/perf_tuning/study.py run --ops bench/results/perf_tuning_zen3/ops.txt \
  --model build/study-zen3/heldout-xgb-roofline.json --xgb-model build/study-zen3/heldout-xgb.json \
  --strategies hardware16,hardware16-transfer,hardware16-choose --out "$OUT" \
  --budget 16 --seeds "$SEEDS"
# The best known counts the fifth study's records too (its databases as one corpus, made by
# bench/results/perf_eval_kinds/make.sh):
bench/perf_tuning/study.py summarize --out "$OUT" --corpus build/perf_eval_kinds/zen3-study.jsonl.gz \
  --json "$OUT/summary.json" > "$OUT/summary.md"
