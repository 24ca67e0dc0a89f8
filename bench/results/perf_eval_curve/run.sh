#!/usr/bin/env bash
# The learning curve of issue 17's best regression (xgb-efficiency-roofline-schedule): scores as
# each split's training side keeps a share of its operators (--train-operators, at random by the
# seed). Each point is SPLIT:SEED:SHARE, written to SPLIT-fSHARE-sSEED.{txt,json}; a point whose
# JSON exists is skipped. With no arguments, the curve: held-out operators and held-out models,
# seeds 0–2, 25/50/75 % (the 100 % points are perf_eval_efficiency/'s; `operators:0:1` refitted
# at this build reproduced them, and `random:0:1` is the random split). The first run (operators,
# 25 %, seed 0) also fitted the rank model (xgb-rank-roofline-schedule); the others dropped it for
# time. Fits only, nothing timed: run from the repository root with build/ci built.
set -euo pipefail
out=bench/results/perf_eval_curve
glimpse=${GLIMPSE:-build/ci/glimpse}
points=("$@")
if [[ ${#points[@]} -eq 0 ]]; then
  for share in 0.25 0.5 0.75; do
    for split_seed in operators:0 operators:1 operators:2 models:0 models:1 models:2; do
      points+=("$split_seed:$share")
    done
  done
fi
for point in "${points[@]}"; do
  IFS=: read -r split seed share <<< "$point"
  name=$split-f$share-s$seed
  [[ -f $out/$name.json ]] && continue
  echo "$(date +%T) $name" >&2
  "$glimpse" perf-model evaluate --corpus data/corpus/cpu-amd-epyc.jsonl.gz \
    --profile data/hardware/cpu_machine_profile_amd_epyc.json --split "$split" --seed "$seed" \
    --train-operators "$share" --quiet --predictors xgb-efficiency-roofline-schedule \
    --json "$out/$name.json.tmp" > "$out/$name.txt"
  mv "$out/$name.json.tmp" "$out/$name.json"
done
