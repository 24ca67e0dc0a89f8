#!/bin/bash
# How the runs in this directory were made (2026-12-03, the Zen 4 guest of ../../cpu_models_64.md;
# see "Template seeds on Zen 4" there). BIN: glimpse and glimpse_cpu_worker built at the commit
# that added the depthwise seeds. One model per call: the README's tuner (xgb-rounds, 64
# measurements a task), seed 0, with the template seeds (the default, 4) and without (0), one
# after the other with nothing else running; then the two runs' best configurations re-measured
# together, interleaved, and the libraries measured right after.
#   BIN=/path/to/bin ./run.sh mobilenet_v2
#   BIN=/path/to/bin SEEDS=4 ./run.sh resnet50   # with the seeds only
set -e
model=$1
out=${OUT:-.}
cd "$(git rev-parse --show-toplevel)"
for seeds in ${SEEDS:-4 0}; do
  name=${model}_tseeds${seeds}
  GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu --model "$model" \
    --tuner xgb-rounds --budget 64 --seed 0 --template-seeds "$seeds" \
    --db "$out/$name.db" --progress log --json > "$out/$name.summary.json"
  "$BIN/glimpse" db export --db "$out/$name.db" | gzip -9 > "$out/$name.jsonl.gz"
done
# Then:
#   bench/cpu_remeasure_runs.py --run without=${model}_tseeds0.db --run with=${model}_tseeds4.db \
#     --tasks bench/configs/${model}_cpu_tasks.txt --top 2 --passes 2 \
#     --bench build/ci/bench/bench_cpu_templates --reference without \
#     --out ${model}_remeasure.json > ${model}_remeasure.md
#   grep -v '^#' bench/configs/${model}_cpu_tasks.txt | sed -e 's/,relu6=1/,relu=1/' \
#     -e 's/,residual=1//' > baseline_ops.txt
#   build/ci/bench/cpu_baselines --check --ops baseline_ops.txt --json ${model}_baselines.json
