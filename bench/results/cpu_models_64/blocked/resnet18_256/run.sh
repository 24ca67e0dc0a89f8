#!/bin/bash
# A model's blocked run (fused epilogues, activations blocked) continued from 64 to 256
# measurements a task (issue 20 asks for the tables at 64 / 256 / 1000): the peeling build's @64
# records (../peel/<model>_retuned/peeled.jsonl.gz, made by ../peel/retune.sh) imported and
# tuned again with their own command and --budget 256, then the @64 and @256 picks measured by the
# same build beside oneDNN's blocked primitive, rotating every round
# (bench/cpu_alternate_vs_onednn.py).
#   BIN=/path/to/bin OUT=/path/to/dir [ROUNDS=3] [MODEL=resnet18|resnet50|vgg16] ./run.sh
set -e
out=${OUT:-.}
rounds=${ROUNDS:-3}
model=${MODEL:-resnet18}
cd "$(git rev-parse --show-toplevel)"
blocked=bench/results/cpu_models_64/blocked
mkdir -p "$out"
prev="$out/at64.db"
rm -f "$prev"
zcat "$blocked/peel/${model}_retuned/peeled.jsonl.gz" > "$out/at64.jsonl"
"$BIN/glimpse" db import "$out/at64.jsonl" --db "$prev" > /dev/null
source "$blocked/model_ops.sh"
model_ops "$model" "$out"
rm -f "$out/at256.db"
cp "$prev" "$out/at256.db"
GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu "${ops[@]}" \
  --tuner xgb-rounds --budget 256 --seed 0 --template-seeds 4 --recheck 3 \
  --db "$out/at256.db" --progress log --json > "$out/at256.summary.json" 2> "$out/at256.log"
"$BIN/glimpse" db export --db "$out/at256.db" | gzip > "$out/at256.jsonl.gz"
conv="$out/${model}_conv_tasks.txt"
grep -E '^(#|conv2d)' "$list" > "$conv"
python3 bench/cpu_alternate_vs_onednn.py --run at64="$prev" --run at256="$out/at256.db" \
  --tasks "$conv" --rounds "$rounds" --threads 2 --bench "$BIN/bench_cpu_templates" \
  --baselines "$BIN/cpu_baselines" --out "$out/${model}.json" > "$out/${model}.md"
