#!/bin/bash
# The two ResNet-18 operators where glimpse @64 did not reach MetaSchedule @256 across sittings
# (the 7×7 stem, 0.05 % short; the 28×28 1×1 stride-2 layer, 134.2 against 152.3 GFLOP/s, in a
# sitting whose FMA peak read 12 % slow) — both tuners run again one after the other, in one
# sitting, with ../run.sh's commands: glimpse xgb-rounds, 64 measurements, seed 0, template
# seeds; MetaSchedule's defaults, 256 measurements (bench/peers/README.md); then the report
# (bench/cpu_resnet18_report.py) of both tuning records.
#   BIN=/path/to/bin OUT=/path/to/dir ./tune.sh
set -e
out=${OUT:-.}
cd "$(git rev-parse --show-toplevel)"
mkdir -p "$out"
tasks="$out/tasks.txt"
grep -E '^#|R=7,S=7|C=128,H=28,W=28,K=256,R=1' bench/configs/resnet18_cpu_tasks.txt > "$tasks"
ops=()
while read -r op; do ops+=(--op "$op"); done < <(grep -v '^#' "$tasks" | sed 's/ *#.*//')
date -u +"oneDNN start %FT%TZ"
"$BIN/cpu_baselines" --check --ops "$tasks" --json "$out/baselines.json" \
  --markdown "$out/baselines.md" > "$out/baselines.log" 2>&1
date -u +"glimpse start %FT%TZ"
rm -f "$out/glimpse64.db"
GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu "${ops[@]}" \
  --tuner xgb-rounds --budget 64 --seed 0 --db "$out/glimpse64.db" --progress log --json \
  > "$out/glimpse64.summary.json" 2> "$out/glimpse64.log"
"$BIN/glimpse" db export --db "$out/glimpse64.db" | gzip > "$out/glimpse64.jsonl.gz"
date -u +"metaschedule start %FT%TZ"
build/tvm-venv/bin/python bench/peers/metaschedule_peer.py --ops "$tasks" --trials 256 \
  --out "$out/metaschedule_t256.json" --work-dir "$out/metaschedule" --resume \
  > "$out/metaschedule.log" 2>&1
date -u +"done %FT%TZ"
python3 bench/cpu_resnet18_report.py --db "$out/glimpse64.db" --baselines "$out/baselines.json" \
  --metaschedule "$out/metaschedule_t256.json" --tasks "$tasks" --checkpoints 16,32,64 \
  > "$out/report.md"
