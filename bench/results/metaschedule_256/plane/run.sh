#!/bin/bash
# ResNet-18's three plain 1×1 stride-2 convolutions tuned again once the conv2d template offers
# the plane layout (NCHW_plane), with ../run.sh's glimpse command (xgb-rounds, 64 measurements,
# seed 0, template seeds), beside oneDNN measured in the same sitting and MetaSchedule's
# 256-measurement records of ../ (its file, not re-run: about 15 minutes of its tuning per
# operator); the report is ../run.sh's (bench/cpu_resnet18_report.py).
#   BIN=/path/to/bin OUT=/path/to/dir ./run.sh
set -e
out=${OUT:-.}
here=$(cd "$(dirname "$0")" && pwd)
cd "$(git rev-parse --show-toplevel)"
mkdir -p "$out"
tasks="$out/strided_pointwise_tasks.txt"
grep -E '^#|R=1,S=1,stride=2' bench/configs/resnet18_cpu_tasks.txt > "$tasks"
"$BIN/cpu_baselines" --check --ops "$tasks" --json "$out/baselines.json" \
  --markdown "$out/baselines.md" > "$out/baselines.log" 2>&1
ops=()
while read -r op; do ops+=(--op "$op"); done < <(grep -v '^#' "$tasks" | sed 's/ *#.*//')
rm -f "$out/glimpse64.db"
GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu "${ops[@]}" \
  --tuner xgb-rounds --budget 64 --seed 0 --db "$out/glimpse64.db" --progress log --json \
  > "$out/glimpse64.summary.json" 2> "$out/glimpse64.log"
"$BIN/glimpse" db export --db "$out/glimpse64.db" | gzip > "$out/glimpse64.jsonl.gz"
zcat "$here/../metaschedule_resnet18_t256.json.gz" > "$out/metaschedule_resnet18_t256.json"
python3 bench/cpu_resnet18_report.py --db "$out/glimpse64.db" --baselines "$out/baselines.json" \
  --metaschedule "$out/metaschedule_resnet18_t256.json" --tasks "$tasks" --checkpoints 16,32,64 \
  > "$out/report.md"
