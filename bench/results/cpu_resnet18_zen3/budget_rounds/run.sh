#!/bin/bash
# How the runs in this directory were made (2026-12-02, the Zen 3 guest; see ../../cpu_resnet18_zen3.md,
# "A plan sized to the budget"). BIN: glimpse and glimpse_cpu_worker built at 1701287, the build of
# the plan-64 runs in ../register_cap (resnet18_new_s*). Seeds one after the other, nothing else
# running; then the four runs' best configurations re-measured together, interleaved.
#   BIN=/path/to/bin ./run.sh 0 1
set -e
out=${OUT:-.}
cd "$(git rev-parse --show-toplevel)"
for seed in "$@"; do
  GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu --model resnet18 \
    --tuner xgb --tuner-option plan_size=16 --budget 64 --seed "$seed" \
    --db "$out/r18_p16_s${seed}.db" --progress log --json > "$out/resnet18_plan16_s${seed}.summary.json"
  "$BIN/glimpse" db export --db "$out/r18_p16_s${seed}.db" | gzip -9 > "$out/resnet18_plan16_s${seed}.jsonl.gz"
done
# With the plan-64 databases of ../register_cap/run.sh kept (r18_new_s{0,1}.db):
#   bench/cpu_remeasure_runs.py --run plan64_s0=r18_new_s0.db --run plan16_s0=r18_p16_s0.db \
#     --run plan64_s1=r18_new_s1.db --run plan16_s1=r18_p16_s1.db \
#     --tasks bench/configs/resnet18_fused_cpu_tasks.txt --top 2 --passes 2 \
#     --bench build/ci/bench/bench_cpu_templates --reference plan64_s0 --out remeasure.json > remeasure.md
#   bench/cpu_knob_share.py --knob layout --round 16 \
#     plan64_s0=../register_cap/resnet18_new_s0.jsonl.gz plan16_s0=resnet18_plan16_s0.jsonl.gz \
#     plan64_s1=../register_cap/resnet18_new_s1.jsonl.gz plan16_s1=resnet18_plan16_s1.jsonl.gz
