#!/bin/bash
# A model's blocked run (fused epilogues, activations blocked) continued to BUDGET measurements a
# task with the tuning's own command (xgb-rounds, seed 0, template seeds, --recheck 3), resumable:
# the first call imports FROM (a record export, e.g. resnet18_256/at256.jsonl.gz) into
# OUT/at$BUDGET.db; a later call with the same OUT goes on from what that database holds, so a run
# killed at a session's end loses only the measurement in flight. When every task has its BUDGET,
# the records are exported and FROM's picks and the new ones are measured by the same build beside
# oneDNN's blocked primitive, rotating every round (bench/cpu_alternate_vs_onednn.py).
#   BIN=/path/to/bin OUT=/path/to/dir FROM=records.jsonl.gz BUDGET=1000 \
#     [MODEL=resnet18|resnet50|vgg16|mobilenet_v2] [LABEL=at256] [ROUNDS=3] [STOP_AT=HH:MM] ./continue.sh
# STOP_AT: stop the tuning at that UTC time (and skip the comparison) if it has not ended.
set -e
out=${OUT:?}
budget=${BUDGET:?}
model=${MODEL:-resnet18}
label=${LABEL:-before}
cd "$(git rev-parse --show-toplevel)"
blocked=bench/results/cpu_models_64/blocked
mkdir -p "$out"
db="$out/at$budget.db"
if [ ! -f "$db" ]; then
  zcat "${FROM:?}" > "$out/from.jsonl"
  rm -f "$out/from.db"
  "$BIN/glimpse" db import "$out/from.jsonl" --db "$out/from.db" > /dev/null
  cp "$out/from.db" "$db.partial"
  mv "$db.partial" "$db"
fi
source "$blocked/model_ops.sh"
model_ops "$model" "$out"
echo "$(date -u +%FT%TZ) tuning to $budget a task" >> "$out/sittings.log"
stop=()
[ -n "$STOP_AT" ] && stop=(timeout --signal=TERM "$(( $(date -u -d "$STOP_AT" +%s) - $(date +%s) ))")
set +e
GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "${stop[@]}" "$BIN/glimpse" tune --target cpu \
  "${ops[@]}" --tuner xgb-rounds --budget "$budget" --seed 0 --template-seeds 4 --recheck 3 \
  --db "$db" --progress log --json > "$out/at$budget.summary.json" 2>> "$out/at$budget.log"
rc=$?
set -e
echo "$(date -u +%FT%TZ) tuning ended, exit status $rc" >> "$out/sittings.log"
[ "$rc" -ne 0 ] && exit "$rc"
"$BIN/glimpse" db export --db "$db" | gzip > "$out/at$budget.jsonl.gz"
conv="$out/${model}_conv_tasks.txt"
grep -E '^(#|conv2d|depthwise_conv2d)' "$list" > "$conv"
python3 bench/cpu_alternate_vs_onednn.py --run "$label=$out/from.db" --run "at$budget=$db" \
  --tasks "$conv" --rounds "${ROUNDS:-3}" --threads 2 --bench "$BIN/bench_cpu_templates" \
  --baselines "$BIN/cpu_baselines" --out "$out/$model.json" > "$out/$model.md"
