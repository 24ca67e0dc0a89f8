#!/bin/bash
# VGG-16 blocked, continued from 64 to 256 measurements a task: the rechecked @64 database of
# run.sh (MODEL=vgg16) copied and tuned on with the same command and --budget 256 (its records
# count towards the budget), --recheck 3 again at the end. Then the @64 and @256 picks re-measured
# together (top 1, 2 interleaved passes) and the libraries right after.
#   BIN=/path/to/bin OUT=/path/to/dir AT64=/path/to/run.sh's/OUT ./vgg16_256.sh
set -e
out=${OUT:-.}
cd "$(git rev-parse --show-toplevel)"
tasks="$AT64/vgg16_blocked_tasks.txt"
ops=()
while read -r op; do ops+=(--op "$op"); done < <(grep -v '^#' "$tasks" | sed 's/ *#.*//')
rm -f "$out/at256.db"
cp "$AT64/after.db" "$out/at256.db"
GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu "${ops[@]}" \
  --tuner xgb-rounds --budget 256 --seed 0 --template-seeds 4 --recheck 3 \
  --db "$out/at256.db" --progress log --json > "$out/at256.summary.json" 2> "$out/at256.log"
conv="$AT64/vgg16_conv_tasks.txt"
python3 bench/cpu_remeasure_runs.py --run at64="$AT64/after.db" --run at256="$out/at256.db" \
  --tasks "$conv" --top 1 --passes 2 --bench "$BIN/bench_cpu_templates" --reference at64 \
  --out "$out/remeasure.json" > "$out/remeasure.md"
"$BIN/cpu_baselines" --check --ops "$AT64/baseline_ops.txt" --json "$out/baselines.json" \
  > "$out/baselines.md"
python3 bench/cpu_remeasure_vs_baselines.py "$out/remeasure.json" "$out/baselines.json" \
  --reference at64 > "$out/vs_baselines.md"
