#!/bin/bash
# How the runs in this directory were made (the Zen 4 guest of ../../cpu_models_64.md; see
# "Activations kept blocked between layers" there). BIN: glimpse and glimpse_cpu_worker built at
# the commit that added in_block/out_block. One model per call: its convolutions with blocked
# activations (blocked_tasks.py), tuned as the plain runs of ../template_seeds were (xgb-rounds,
# 64 measurements a task, seed 0, the template seeds).
#   BIN=/path/to/bin ./run.sh vgg16
# TASKS: another task list than bench/configs/MODEL_cpu_tasks.txt (ResNet-18: its fused list).
set -e
model=$1
out=${OUT:-.}
here=$(cd "$(dirname "$0")" && pwd)
cd "$(git rev-parse --show-toplevel)"
tasks="$here/${model}_blocked_tasks.txt"
python3 "$here/blocked_tasks.py" "${TASKS:-bench/configs/${model}_cpu_tasks.txt}" > "$tasks"
ops=()
while read -r op; do ops+=(--op "$op"); done < <(grep -v '^#' "$tasks" | sed 's/ *#.*//')
name=${model}_blocked
GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu "${ops[@]}" \
  --tuner xgb-rounds --budget 64 --seed 0 --template-seeds 4 \
  --db "$out/$name.db" --progress log --json > "$out/$name.summary.json"
"$BIN/glimpse" db export --db "$out/$name.db" | gzip -9 > "$out/$name.jsonl.gz"
# Then the blocked and the plain runs' best configurations re-measured together
# (cpu_remeasure_runs.py, each run with its own task list) and the libraries right after.
