#!/bin/bash
# The sixth study (perf_tuning.md, "Sixth study") on its stem operator only — MobileNet-v2's
# 3×3 stride-2 first layer, 3 → 32 channels — with a build that has the one-block seed and the
# first layers' prefetches (kCpuTemplateVersion 3 and after). Same model recipe (trained without
# MobileNet-v2 and ResNet-50), strategies, budget and seeds. Run from the repository root, with
# nothing else running: bash bench/results/perf_tuning_stem/run.sh
set -euo pipefail
HERE=bench/results/perf_tuning_stem
G=${GLIMPSE:-build/ci/glimpse}
WORK=build/study/stem
mkdir -p build/study "$WORK"
echo "build $(git rev-parse --short HEAD)" > "$HERE/sitting.log"
echo "train $(date -u +%FT%TZ)" >> "$HERE/sitting.log"
"$G" train perf-model --corpus data/corpus/cpu-amd-epyc.jsonl.gz --exclude-model mobilenet_v2 \
  --exclude-model resnet50 --out build/study/perf-heldout.json > "$HERE/train.log" 2>&1
echo "study $(date -u +%FT%TZ)" >> "$HERE/sitting.log"
python3 bench/perf_tuning/study.py run --ops "$HERE/ops.txt" --model build/study/perf-heldout.json \
  --out "$WORK" --budget 96 --seeds 1,2,3 --strategies learned,xgb,learned-noseeds \
  --glimpse "$G" >> "$HERE/sitting.log" 2>&1
echo "done $(date -u +%FT%TZ)" >> "$HERE/sitting.log"
python3 bench/perf_tuning/study.py summarize --out "$WORK" --json "$HERE/summary.json" > "$HERE/summary.md"
python3 bench/perf_tuning/study.py drift --out "$WORK" > "$HERE/drift.txt" 2>&1 || true
cp "$WORK"/study.json "$HERE/"
for db in "$WORK"/*.db; do "$G" db export --db "$db" | gzip > "$HERE/$(basename "$db" .db).jsonl.gz"; done
cp "$WORK"/*.log "$HERE/"
