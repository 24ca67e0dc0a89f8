#!/bin/bash
# The second form of the plain-output stem seed (8-channel blocks × 7 columns, the column taps
# outside the row taps, parallel over blocks and rows; template_seeds.cc): hardware16 on the
# stem, seeds 1–6, as hardware16@stemseed8, beside every run run.sh re-timed and run.sh's
# hardware16@stemseed runs (the first form: 16-channel blocks × 8 columns as outer tiles),
# then all re-timed side by side into eight/. Run from the repository root after run.sh (it
# needs build/study/perf-heldout.json), with nothing else running:
#   bash bench/results/perf_tuning_stemseed/second.sh
set -euo pipefail
source bench/perf_tuning/recheck_sitting.sh
HERE=bench/results/perf_tuning_stemseed
OUT=$HERE/eight
STUDY=bench/results/perf_tuning_recheck
WIDE=bench/results/perf_tuning_wide
G=${GLIMPSE:-build/ci/glimpse}
BENCH=${BENCH:-build/ci/bench/bench_cpu_templates}
WORK=build/study/stemseed8
rm -rf "$WORK"
mkdir -p "$WORK" "$OUT"
cp "$STUDY"/*.jsonl.gz "$STUDY"/more_seeds/*.jsonl.gz "$STUDY"/diverse/*.jsonl.gz \
  "$WIDE"/hardware16@wide-s*.jsonl.gz "$HERE"/hardware16@stemseed-s*.jsonl.gz "$WORK"/
cp "$HERE"/study.json "$WORK"/study.json
echo "build $(git rev-parse --short HEAD)" > "$OUT/sitting.log"
echo "study $(date -u +%FT%TZ)" >> "$OUT/sitting.log"
python3 bench/perf_tuning/study.py run --ops "$HERE/ops.txt" --model build/study/perf-heldout.json \
  --label stemseed8 --out "$WORK" --budget 96 --seeds 1,2,3,4,5,6 --strategies hardware16 \
  --glimpse "$G" >> "$OUT/sitting.log" 2>&1
recheck_sitting "$WORK" "$OUT"
gzip -9 -f "$OUT/recheck.json"
cp "$WORK"/study.json "$OUT/"
for db in "$WORK"/hardware16@stemseed8-s*.db; do
  "$G" db export --db "$db" | gzip -9 > "$OUT/$(basename "$db" .db).jsonl.gz"
done
cp "$WORK"/hardware16@stemseed8-s*.log "$OUT/"
