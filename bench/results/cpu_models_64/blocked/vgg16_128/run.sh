#!/bin/bash
# VGG-16's blocked run continued from 64 to 128 measurements a task with the build that skips the
# padding rows (../padding_rows), so that the search can find the configurations that profit from
# it: the rechecked @64 run (../recheck) imported, tuned again with its own command and --budget
# 128 --recheck 3, then its picks and the @64 picks measured by the same build beside oneDNN's
# blocked primitive, rotating every round (bench/cpu_alternate_vs_onednn.py).
#   BIN=/path/to/bin OUT=/path/to/dir [ROUNDS=3] ./run.sh
set -e
out=${OUT:-.}
rounds=${ROUNDS:-3}
cd "$(git rev-parse --show-toplevel)"
blocked=bench/results/cpu_models_64/blocked
mkdir -p "$out"
tasks="$out/vgg16_blocked_tasks.txt"
python3 "$blocked/blocked_tasks.py" bench/configs/vgg16_cpu_tasks.txt > "$tasks"
ops=()
while read -r op; do ops+=(--op "$op"); done < <(grep -v '^#' "$tasks" | sed 's/ *#.*//')
rm -f "$out/at64.db" "$out/at128.db"
zcat "$blocked/vgg16_blocked.jsonl.gz" "$blocked/recheck/vgg16/recheck_records.jsonl.gz" \
  > "$out/at64.jsonl"
"$BIN/glimpse" db import "$out/at64.jsonl" --db "$out/at64.db" > /dev/null
cp "$out/at64.db" "$out/at128.db"
GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu "${ops[@]}" \
  --tuner xgb-rounds --budget 128 --seed 0 --template-seeds 4 --recheck 3 \
  --db "$out/at128.db" --progress log --json > "$out/at128.summary.json" 2> "$out/at128.log"
"$BIN/glimpse" db export --db "$out/at128.db" > "$out/at128.jsonl"
conv="$out/vgg16_conv_tasks.txt"
grep -E '^(#|conv2d)' bench/configs/vgg16_cpu_tasks.txt > "$conv"
python3 bench/cpu_alternate_vs_onednn.py --run at64="$out/at64.db" --run at128="$out/at128.db" \
  --tasks "$conv" --rounds "$rounds" --threads 2 --bench "$BIN/bench_cpu_templates" \
  --baselines "$BIN/cpu_baselines" --out "$out/vgg16.json" > "$out/vgg16.md"
