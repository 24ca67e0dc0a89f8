#!/usr/bin/env bash
# The learning curve of issue 17's best regression (xgb-efficiency-roofline-schedule): scores on
# the held-out-operator split (seeds 0–2) and the held-out-model split as the training side keeps
# 25, 50 and 75 % of its operators (--train-operators, at random by the seed; 100 % is
# perf_eval_efficiency/, the same predictor and splits). The first run (operators, 25 %, seed 0)
# also fitted the rank model (xgb-rank-roofline-schedule); the others drop it for time. Fits
# only, nothing timed: run from the repository root with build/ci built.
set -euo pipefail
out=bench/results/perf_eval_curve
glimpse=${GLIMPSE:-build/ci/glimpse}
for fraction in 0.25 0.5 0.75; do
  for split_seed in operators:0 operators:1 operators:2 models:0 models:1 models:2; do
    split=${split_seed%%:*}
    seed=${split_seed##*:}
    name=$split-f$fraction-s$seed
    [[ -f $out/$name.json ]] && continue
    echo "$(date +%T) $name" >&2
    "$glimpse" perf-model evaluate --corpus data/corpus/cpu-amd-epyc.jsonl.gz \
      --profile data/hardware/cpu_machine_profile_amd_epyc.json --split "$split" --seed "$seed" \
      --train-operators "$fraction" --quiet \
      --predictors xgb-efficiency-roofline-schedule \
      --json "$out/$name.json.tmp" > "$out/$name.txt"
    mv "$out/$name.json.tmp" "$out/$name.json"
  done
done
