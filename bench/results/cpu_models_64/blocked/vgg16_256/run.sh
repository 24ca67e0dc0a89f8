#!/bin/bash
# VGG-16's blocked run continued from 128 to 256 measurements a task (issue 20 asks for the
# tables at 64 / 256 / 1000): the @128 database of ../vgg16_128 (PREV, default
# /work/runs/vgg128/at128.db; ../vgg16_128/at128.jsonl.gz holds its records) copied and tuned
# again with its own command and --budget 256 --recheck 3, then the @128 and @256 picks measured
# by the same build beside oneDNN's blocked primitive, rotating every round
# (bench/cpu_alternate_vs_onednn.py).
#   BIN=/path/to/bin OUT=/path/to/dir [PREV=at128.db] [ROUNDS=3] ./run.sh
set -e
out=${OUT:-.}
rounds=${ROUNDS:-3}
cd "$(git rev-parse --show-toplevel)"
blocked=bench/results/cpu_models_64/blocked
mkdir -p "$out"
prev=${PREV:-}
if [[ -z $prev ]]; then
  prev="$out/at128.db"
  rm -f "$prev"
  zcat "$blocked/vgg16_128/at128.jsonl.gz" > "$out/at128.jsonl"
  "$BIN/glimpse" db import "$out/at128.jsonl" --db "$prev" > /dev/null
fi
tasks="$out/vgg16_blocked_tasks.txt"
python3 "$blocked/blocked_tasks.py" bench/configs/vgg16_cpu_tasks.txt > "$tasks"
ops=()
while read -r op; do ops+=(--op "$op"); done < <(grep -v '^#' "$tasks" | sed 's/ *#.*//')
rm -f "$out/at256.db"
cp "$prev" "$out/at256.db"
GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu "${ops[@]}" \
  --tuner xgb-rounds --budget 256 --seed 0 --template-seeds 4 --recheck 3 \
  --db "$out/at256.db" --progress log --json > "$out/at256.summary.json" 2> "$out/at256.log"
"$BIN/glimpse" db export --db "$out/at256.db" > "$out/at256.jsonl"
conv="$out/vgg16_conv_tasks.txt"
grep -E '^(#|conv2d)' bench/configs/vgg16_cpu_tasks.txt > "$conv"
python3 bench/cpu_alternate_vs_onednn.py --run at128="$prev" --run at256="$out/at256.db" \
  --tasks "$conv" --rounds "$rounds" --threads 2 --bench "$BIN/bench_cpu_templates" \
  --baselines "$BIN/cpu_baselines" --out "$out/vgg16.json" > "$out/vgg16.md"
