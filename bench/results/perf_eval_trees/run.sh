#!/usr/bin/env bash
# XGBoost's sampling and leaf-size options on the held-out-operator split (seed 0, the corpus
# alone), two fits at a time, each on one thread; then the knob-values diagnostic.
# Usage: GLIMPSE=build/ci/glimpse bench/results/perf_eval_trees/run.sh   (from the repository)
set -euo pipefail
G=${GLIMPSE:-build/ci/glimpse}
HERE=$(dirname "$0")
C=data/corpus/cpu-amd-epyc.jsonl.gz
P=data/hardware/cpu_machine_profile_amd_epyc.json
fit() {
  local name=$1
  shift
  "$G" perf-model evaluate --corpus "$C" --profile "$P" --split operators --seed 0 \
    --predictors xgb-efficiency-roofline-schedule --quiet "$@" > "$HERE/operators-s0-$name.txt"
}
fit base &
fit col05 --xgb-colsample 0.5 &
wait
fit sub07 --xgb-subsample 0.7 &
fit mcw20 --xgb-min-child-weight 20 &
wait
fit col03 --xgb-colsample 0.3 &
fit col05sub07 --xgb-colsample 0.5 --xgb-subsample 0.7 &
wait
.venv/bin/python bench/perf_eval/knob_ceiling.py "$C" > "$HERE/knob_ceiling.txt"
