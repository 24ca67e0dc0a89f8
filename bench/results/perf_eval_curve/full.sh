#!/usr/bin/env bash
# The learning curve's 100 % point refitted with this build, to check that perf_eval_efficiency/'s
# figures (an earlier build; the featuriser rebuilds today's programs) still hold: the
# held-out-operator split, seed 0 (it reproduced them exactly; the other 100 % points are taken
# from there). Give more SPLIT:SEED arguments for the others. Run from the repository root.
set -euo pipefail
out=bench/results/perf_eval_curve
glimpse=${GLIMPSE:-build/ci/glimpse}
for split_seed in "${@:-operators:0}"; do
  split=${split_seed%%:*}
  seed=${split_seed##*:}
  name=$split-f1-s$seed
  [[ -f $out/$name.json ]] && continue
  echo "$(date +%T) $name" >&2
  "$glimpse" perf-model evaluate --corpus data/corpus/cpu-amd-epyc.jsonl.gz \
    --profile data/hardware/cpu_machine_profile_amd_epyc.json --split "$split" --seed "$seed" \
    --quiet --predictors xgb-efficiency-roofline-schedule \
    --json "$out/$name.json.tmp" > "$out/$name.txt"
  mv "$out/$name.json.tmp" "$out/$name.json"
done
