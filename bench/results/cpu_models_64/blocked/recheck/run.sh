#!/bin/bash
# The recheck (glimpse tune --recheck, docs/usage.md) on a recorded run: a model's blocked @64 run
# (ResNet-18's of ../resnet18, the others' of .., tuned 2026-12-03 without it), imported into a
# fresh database and tuned again with the same command. Every task has its 64 measurements already, so the search measures
# nothing; only the final pass runs: each task's 3 fastest and its epilogue siblings' 2 fastest
# measured in one batch. Then the run's picks before and after re-measured together (top 1, 2
# interleaved passes) and the libraries right after.
#   BIN=/path/to/bin OUT=/path/to/dir [MODEL=resnet50] ./run.sh
# DBS=/path/to/dir: compare the databases already there (another sitting), without tuning.
set -e
out=${OUT:-.}
dbs=${DBS:-$out}
here=$(cd "$(dirname "$0")" && pwd)
cd "$(git rev-parse --show-toplevel)"
blocked=bench/results/cpu_models_64/blocked
model=${MODEL:-resnet18}
if [ "$model" = resnet18 ]; then
  list=bench/configs/resnet18_fused_cpu_tasks.txt
  recorded=$blocked/resnet18/resnet18_blocked.jsonl.gz
else
  list=bench/configs/${model}_cpu_tasks.txt
  recorded=$blocked/${model}_blocked.jsonl.gz
fi
tasks="$out/${model}_blocked_tasks.txt"
python3 "$blocked/blocked_tasks.py" "$list" > "$tasks"
ops=()
while read -r op; do ops+=(--op "$op"); done < <(grep -v '^#' "$tasks" | sed 's/ *#.*//')
if [ -z "$DBS" ]; then
rm -f "$out/before.db" "$out/after.db"
zcat "$recorded" > "$out/before.jsonl"
"$BIN/glimpse" db import "$out/before.jsonl" --db "$out/before.db"
cp "$out/before.db" "$out/after.db"
GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu "${ops[@]}" \
  --tuner xgb-rounds --budget 64 --seed 0 --template-seeds 4 --recheck 3 \
  --db "$out/after.db" --progress log --json > "$out/after.summary.json" 2> "$out/after.log"
grep -E '^(recheck|sibling sweep),' "$out/after.log" > "$out/recheck_lines.txt" || true
fi
conv="$out/${model}_conv_tasks.txt"
grep -E '^(#|conv2d|depthwise_conv2d)' "$list" > "$conv"
python3 bench/cpu_remeasure_runs.py --run before="$dbs/before.db" --run after="$dbs/after.db" \
  --tasks "$conv" --top 1 --passes 2 --bench "$BIN/bench_cpu_templates" --reference before \
  --out "$out/remeasure.json" > "$out/remeasure.md"
grep -v '^#' "$conv" | sed -e 's/ *#.*//' -e 's/,relu6=1/,relu=1/' -e 's/,residual=1//' \
  > "$out/baseline_ops.txt"
"$BIN/cpu_baselines" --check --ops "$out/baseline_ops.txt" --json "$out/baselines.json" \
  > "$out/baselines.md"
python3 bench/cpu_remeasure_vs_baselines.py "$out/remeasure.json" "$out/baselines.json" \
  --reference before > "$out/vs_baselines.md"
