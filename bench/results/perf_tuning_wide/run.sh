#!/bin/bash
# hardware16 on a GraphSAGE model trained with MobileNet-v1's depthwise and pointwise layers
# (perf_tuning.md, "A model trained with MobileNet-v1's layers"): the seventh study's six
# operators and seeds 1–6, run as hardware16@wide beside that study's committed runs (copied in
# from their exports, so that one best known and one re-timing serve them all); then every run's
# incumbents re-timed side by side. Run from the repository root with nothing else running:
#   bash bench/results/perf_tuning_wide/run.sh
set -euo pipefail
source bench/perf_tuning/recheck_sitting.sh
HERE=bench/results/perf_tuning_wide
STUDY=bench/results/perf_tuning_recheck
G=${GLIMPSE:-build/ci/glimpse}
BENCH=${BENCH:-build/ci/bench/bench_cpu_templates}
WORK=build/study/wide
E=data/corpus/cpu-amd-epyc
mkdir -p "$WORK"
cp "$STUDY"/*.jsonl.gz "$STUDY"/more_seeds/*.jsonl.gz "$STUDY"/diverse/*.jsonl.gz "$WORK"/
cp "$STUDY"/diverse/study.json "$WORK"/study.json
echo "build $(git rev-parse --short HEAD)" > "$HERE/sitting.log"
echo "train $(date -u +%FT%TZ)" >> "$HERE/sitting.log"
if [ ! -f build/study/perf-heldout-wide.json ]; then
  "$G" train perf-model --corpus "$E.jsonl.gz,$E-mobilenet-v1-depthwise.jsonl.gz,$E-mobilenet-v1-pointwise.jsonl.gz" \
    --exclude-model mobilenet_v2 --exclude-model resnet50 --out build/study/perf-heldout-wide.json \
    > "$HERE/train.log" 2>&1
fi
echo "study $(date -u +%FT%TZ)" >> "$HERE/sitting.log"
python3 bench/perf_tuning/study.py run --ops "$STUDY/ops.txt" --model build/study/perf-heldout-wide.json \
  --label wide --out "$WORK" --budget 96 --seeds 1,2,3,4,5,6 --strategies hardware16 \
  --glimpse "$G" >> "$HERE/sitting.log" 2>&1
recheck_sitting "$WORK" "$HERE"
gzip -9 -f "$HERE/recheck.json"
cp "$WORK"/study.json "$HERE/"
for db in "$WORK"/hardware16@wide-s*.db; do
  "$G" db export --db "$db" | gzip -9 > "$HERE/$(basename "$db" .db).jsonl.gz"
done
cp "$WORK"/hardware16@wide-s*.log "$HERE/"
