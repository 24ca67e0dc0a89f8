#!/bin/bash
# hardware16 on the seventh study's stem operator (MobileNet-v2's 3×3 stride-2 first layer with a
# plain output) with the plain-output one-block seed (template_seeds.cc), seeds 1–6, run as
# hardware16@stemseed beside every committed run of the seventh study and its later sittings
# (copied in from their exports, as perf_tuning_wide/retime.sh does), then every run's
# incumbents re-timed side by side (perf_tuning.md, "A seed for the plain-output stem"). The
# same model recipe as the study's (trained without MobileNet-v2 and ResNet-50). Run from the
# repository root with nothing else running: bash bench/results/perf_tuning_stemseed/run.sh
set -euo pipefail
source bench/perf_tuning/recheck_sitting.sh
HERE=bench/results/perf_tuning_stemseed
STUDY=bench/results/perf_tuning_recheck
WIDE=bench/results/perf_tuning_wide
G=${GLIMPSE:-build/ci/glimpse}
BENCH=${BENCH:-build/ci/bench/bench_cpu_templates}
WORK=build/study/stemseed
rm -rf "$WORK"
mkdir -p "$WORK"
cp "$STUDY"/*.jsonl.gz "$STUDY"/more_seeds/*.jsonl.gz "$STUDY"/diverse/*.jsonl.gz \
  "$WIDE"/hardware16@wide-s*.jsonl.gz "$WORK"/
cp "$WIDE"/study.json "$WORK"/study.json
echo "build $(git rev-parse --short HEAD)" > "$HERE/sitting.log"
echo "train $(date -u +%FT%TZ)" >> "$HERE/sitting.log"
if [ ! -f build/study/perf-heldout.json ]; then
  "$G" train perf-model --corpus data/corpus/cpu-amd-epyc.jsonl.gz --exclude-model mobilenet_v2 \
    --exclude-model resnet50 --out build/study/perf-heldout.json > "$HERE/train.log" 2>&1
fi
echo "study $(date -u +%FT%TZ)" >> "$HERE/sitting.log"
python3 bench/perf_tuning/study.py run --ops "$HERE/ops.txt" --model build/study/perf-heldout.json \
  --label stemseed --out "$WORK" --budget 96 --seeds 1,2,3,4,5,6 --strategies hardware16 \
  --glimpse "$G" >> "$HERE/sitting.log" 2>&1
recheck_sitting "$WORK" "$HERE"
gzip -9 -f "$HERE/recheck.json"
cp "$WORK"/study.json "$HERE/"
for db in "$WORK"/hardware16@stemseed-s*.db; do
  "$G" db export --db "$db" | gzip -9 > "$HERE/$(basename "$db" .db).jsonl.gz"
done
cp "$WORK"/hardware16@stemseed-s*.log "$HERE/"
