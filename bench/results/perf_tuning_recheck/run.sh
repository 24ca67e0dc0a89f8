#!/bin/bash
# The seventh study (perf_tuning.md, "Seventh study"): the sixth study's operators and strategies
# with this build (learned and xgb cold, 96 measurements), plus learned16-recheck (12, then the
# run's 4 fastest measured again in one batch), hardware16 and hardware16-recheck (the same
# recheck inside --hardware-budget 16); every run's choices then re-timed side by side
# (study.py recheck). Run
# from the repository root, with nothing else running: bash bench/results/perf_tuning_recheck/run.sh
set -euo pipefail
source bench/perf_tuning/recheck_sitting.sh
HERE=bench/results/perf_tuning_recheck
G=${GLIMPSE:-build/ci/glimpse}
BENCH=${BENCH:-build/ci/bench/bench_cpu_templates}
WORK=build/study/recheck
mkdir -p build/study "$WORK"
echo "build $(git rev-parse --short HEAD)" > "$HERE/sitting.log"
echo "train $(date -u +%FT%TZ)" >> "$HERE/sitting.log"
"$G" train perf-model --corpus data/corpus/cpu-amd-epyc.jsonl.gz --exclude-model mobilenet_v2 \
  --exclude-model resnet50 --out build/study/perf-heldout.json > "$HERE/train.log" 2>&1
echo "study $(date -u +%FT%TZ)" >> "$HERE/sitting.log"
python3 bench/perf_tuning/study.py run --ops "$HERE/ops.txt" --model build/study/perf-heldout.json \
  --out "$WORK" --budget 96 --seeds 1,2,3 --strategies learned,learned16-recheck,hardware16,hardware16-recheck,xgb \
  --glimpse "$G" >> "$HERE/sitting.log" 2>&1
recheck_sitting "$WORK" "$HERE"
gzip -9 -f "$HERE/recheck.json"
python3 bench/perf_tuning/study.py summarize --out "$WORK" --glimpse "$G" --json "$HERE/summary.json" \
  > "$HERE/summary.md"
python3 bench/perf_tuning/study.py drift --out "$WORK" --glimpse "$G" > "$HERE/drift.txt" 2>&1 || true
cp "$WORK"/study.json "$HERE/"
for db in "$WORK"/*.db; do "$G" db export --db "$db" | gzip -9 > "$HERE/$(basename "$db" .db).jsonl.gz"; done
cp "$WORK"/*.log "$HERE/"
