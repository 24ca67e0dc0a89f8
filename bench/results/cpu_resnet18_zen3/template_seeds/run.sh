#!/bin/bash
# How the runs in this directory were made (2026-12-02/03, the Zen 3 guest; see
# ../../cpu_resnet18_zen3.md, "Template seeds"). BIN: glimpse and glimpse_cpu_worker built at
# eaa5c74 (template seeds, --template-seeds 4 by default). The command is the plan-16 runs' of
# ../budget_rounds/run.sh; the only difference is the template seeds. Seeds one after the other,
# nothing else running (22:17-22:37 UTC); then the four runs' best configurations re-measured
# together, interleaved (00:07-00:13 UTC), then cpu_baselines (00:13 UTC).
#   BIN=/path/to/bin ./run.sh 0 1
set -e
out=${OUT:-.}
cd "$(git rev-parse --show-toplevel)"
for seed in "$@"; do
  GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu --model resnet18 \
    --tuner xgb --tuner-option plan_size=16 --budget 64 --seed "$seed" \
    --db "$out/r18_tseeds_s${seed}.db" --progress log --json > "$out/resnet18_tseeds_s${seed}.summary.json"
  "$BIN/glimpse" db export --db "$out/r18_tseeds_s${seed}.db" | gzip -9 > "$out/resnet18_tseeds_s${seed}.jsonl.gz"
done
# With ../budget_rounds' plan-16 databases (glimpse db import of resnet18_plan16_s*.jsonl, unzipped):
#   bench/cpu_remeasure_runs.py --run plan16_s0=r18_p16_s0.db --run seeds_s0=r18_tseeds_s0.db \
#     --run plan16_s1=r18_p16_s1.db --run seeds_s1=r18_tseeds_s1.db \
#     --tasks bench/configs/resnet18_fused_cpu_tasks.txt --top 2 --passes 2 \
#     --bench build/ci/bench/bench_cpu_templates --reference plan16_s0 --out remeasure.json > remeasure.md
#   build/ci/bench/cpu_baselines --ops ../baseline_ops.txt --json baselines.json
# compare.txt: remeasure.json against baselines.json (oneDNN blocked, the median), per run.
