#!/bin/bash
# ResNet-18's blocked tasks (fused epilogues, activations blocked: the tasks of the 1000-measurement
# run beside this script) tuned with the shipped performance model and HW measurements a task
# (`--hardware-budget`, its defaults otherwise: rounds, template and sibling seeds), for issue 19's
# goal: ResNet-18 within 10 % of the latency of a 1000-measurement tuning. The records go to
# $OUT/at$TAG.jsonl.gz (TAG: hw$HW, or hw${HW}s$SEED for a seed other than 0), for whole.sh
# (BUDGETS="1000 hw16 hw16s1" AT_1000=…).
#   BIN=/path/to/bin OUT=/path/to/dir [HW=16] [SEED=0] [MODEL=resnet18]
#     [COST_MODEL=data/models/perf-cpu-amd-epyc.json] ./hw_budget.sh
set -e
cd "$(git rev-parse --show-toplevel)"
out=${OUT:?}
hw=${HW:-16}
seed=${SEED:-0}
tag=hw$hw
[ "$seed" != 0 ] && tag=hw${hw}s$seed
mkdir -p "$out"
source bench/results/cpu_models_64/blocked/model_ops.sh
model_ops "${MODEL:-resnet18}" "$out"
db="$out/at$tag.db"
rm -f "$db"
GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu "${ops[@]}" \
  --cost-model "${COST_MODEL:-data/models/perf-cpu-amd-epyc.json}" --hardware-budget "$hw" \
  --seed "$seed" --db "$db" --progress log --json > "$out/at$tag.summary.json" \
  2> "$out/at$tag.log"
"$BIN/glimpse" db export --db "$db" | gzip > "$out/at$tag.jsonl.gz"
