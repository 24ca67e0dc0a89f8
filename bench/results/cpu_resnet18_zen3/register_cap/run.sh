#!/bin/bash
# How the runs in this directory were made (2026-12-02, the Zen 3 guest; see ../../cpu_resnet18_zen3.md).
# OLD: glimpse and glimpse_cpu_worker built at 6c73e97 (register tile capped at 512 floats);
# NEW: built at 1701287 (capped at what this machine's registers hold: 120 floats on AVX2).
# For each seed both run one after the other (seed 0: new first; seed 1: old first), then the
# baselines; nothing else ran on the machine meanwhile. Afterwards the runs' best configurations
# were re-measured together, interleaved (remeasure.md).
#   OLD=/path/to/old/bin NEW=/path/to/new/bin ORDER="new old" ./run.sh 0
set -e
seed=${1:?seed}
out=${OUT:-.}
root=$(git rev-parse --show-toplevel)
cd "$root"
for v in ${ORDER:-new old}; do
  bin=$([ "$v" = old ] && echo "$OLD" || echo "$NEW")
  GLIMPSE_CPU_WORKER=$bin/glimpse_cpu_worker "$bin/glimpse" tune --target cpu --model resnet18 \
    --tuner xgb --budget 64 --seed "$seed" --db "$out/r18_${v}_s${seed}.db" --progress log --json \
    > "$out/resnet18_${v}_s${seed}.summary.json"
  "$bin/glimpse" db export --db "$out/r18_${v}_s${seed}.db" | gzip -9 > "$out/resnet18_${v}_s${seed}.jsonl.gz"
done
build/ci/bench/cpu_baselines --check --ops bench/results/cpu_resnet18_zen3/baseline_ops.txt \
  --json "$out/baselines_s${seed}.json"
gzip -9 "$out/baselines_s${seed}.json"
# After both seeds, with the four databases kept (here: r18_{old,new}_s{0,1}.db):
#   bench/cpu_remeasure_runs.py --run old_s0=r18_old_s0.db --run new_s0=r18_new_s0.db \
#     --run old_s1=r18_old_s1.db --run new_s1=r18_new_s1.db \
#     --tasks bench/configs/resnet18_fused_cpu_tasks.txt --top 2 --passes 2 \
#     --bench build/ci/bench/bench_cpu_templates --reference old_s0 --out remeasure.json > remeasure.md
