#!/bin/bash
# A model (activations blocked, fused epilogues) tuned afresh by the peeling build with the recheck
# run's command (../recheck/run.sh: xgb-rounds, 64 measurements a task, template seeds, --recheck
# 3), then its picks and the old build's picks (PREV: a database of the old code's run) measured
# by the same new build beside oneDNN, rotating (bench/cpu_alternate_vs_onednn.py, 3 rounds).
#   BIN=/path/to/new/bin PREV=/path/to/old.db OUT=/path/to/dir [MODEL=resnet18|vgg16] ./retune.sh
# (resnet18: PREV the recheck run's after.db; vgg16: the @256 run's at256.db, ../vgg16_256.)
set -e
cd "$(git rev-parse --show-toplevel)"
blocked=bench/results/cpu_models_64/blocked
mkdir -p "$OUT"
model=${MODEL:-resnet18}
source "$blocked/model_ops.sh"
model_ops "$model" "$OUT"
rm -f "$OUT/peeled.db"
GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu "${ops[@]}" \
  --tuner xgb-rounds --budget 64 --seed 0 --template-seeds 4 --recheck 3 \
  --db "$OUT/peeled.db" --progress log --json > "$OUT/peeled.summary.json" 2> "$OUT/peeled.log"
"$BIN/glimpse" db export --db "$OUT/peeled.db" | gzip > "$OUT/peeled.jsonl.gz"
conv="$OUT/${model}_conv_tasks.txt"
grep -E '^(#|conv2d)' "$list" > "$conv"
python3 bench/cpu_alternate_vs_onednn.py --run old_picks="$PREV" --run new_picks="$OUT/peeled.db" \
  --tasks "$conv" --rounds 3 --threads 2 --bench "$BIN/bench_cpu_templates" \
  --baselines "$BIN/cpu_baselines" --out "$OUT/${model}_retuned.json" > "$OUT/${model}_retuned.md"
