#!/bin/bash
# Issue 20's search-speed goal on ResNet-18's layers: MetaSchedule's quality after 256 measurements
# against glimpse's best-so-far curve, both on the same 12 operators (bench/configs/
# resnet18_cpu_tasks.txt: convolutions with bias, no ReLU, as the peer expresses them), in one
# sitting: oneDNN / OpenBLAS / peak first (for the table), then glimpse @64 (xgb-rounds with its
# template seeds, the CPU defaults of the model runs), then MetaSchedule @256 (its defaults,
# bench/peers/README.md), then the report (bench/cpu_resnet18_report.py).
#   BIN=/path/to/bin OUT=/path/to/dir ./run.sh     (BIN: glimpse, glimpse_cpu_worker, cpu_baselines)
# Needs bench/peers/setup_tvm.sh's build/tvm-venv. MetaSchedule's file is rewritten after every
# operator; rerunning resumes it.
set -e
out=${OUT:-.}
cd "$(git rev-parse --show-toplevel)"
mkdir -p "$out"
tasks=bench/configs/resnet18_cpu_tasks.txt
"$BIN/cpu_baselines" --check --json "$out/baselines.json" --markdown "$out/baselines.md" \
  > "$out/baselines.log" 2>&1
ops=()
while read -r op; do ops+=(--op "$op"); done < <(grep -v '^#' "$tasks" | sed 's/ *#.*//')
if [[ ! -f $out/glimpse64.summary.json ]]; then
  rm -f "$out/glimpse64.db"
  GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu "${ops[@]}" \
    --tuner xgb-rounds --budget 64 --seed 0 --db "$out/glimpse64.db" --progress log --json \
    > "$out/glimpse64.summary.json" 2> "$out/glimpse64.log"
fi
build/tvm-venv/bin/python bench/peers/metaschedule_peer.py --ops "$tasks" --trials 256 \
  --out "$out/metaschedule_resnet18_t256.json" --resume > "$out/metaschedule.log" 2>&1
python3 bench/cpu_resnet18_report.py --db "$out/glimpse64.db" --baselines "$out/baselines.json" \
  --metaschedule "$out/metaschedule_resnet18_t256.json" --checkpoints 16,32,64 > "$out/report.md"
