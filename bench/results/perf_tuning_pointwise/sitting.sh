#!/bin/bash
# hardware16 with this build on all six of the seventh study's operators, seeds 1–6, as
# hardware16@cols: the strategy with the plain 1×1 layers' one-vector blocks at 14 columns and the
# depthwise rows seed not unrolled, beside every run perf_tuning_stemseed/whole.sh re-timed (and
# its hardware16@now runs), then all re-timed side by side into sitting/. Run from the repository
# root with nothing else running: bash bench/results/perf_tuning_pointwise/sitting.sh
set -euo pipefail
source bench/perf_tuning/recheck_sitting.sh
HERE=bench/results/perf_tuning_pointwise
OUT=$HERE/sitting
STUDY=bench/results/perf_tuning_recheck
WIDE=bench/results/perf_tuning_wide
STEM=bench/results/perf_tuning_stemseed
G=${GLIMPSE:-build/ci/glimpse}
BENCH=${BENCH:-build/ci/bench/bench_cpu_templates}
WORK=build/study/pointwise
rm -rf "$WORK"
mkdir -p "$WORK" "$OUT"
cp "$STUDY"/*.jsonl.gz "$STUDY"/more_seeds/*.jsonl.gz "$STUDY"/diverse/*.jsonl.gz \
  "$WIDE"/hardware16@wide-s*.jsonl.gz "$STEM"/hardware16@stemseed-s*.jsonl.gz \
  "$STEM"/eight/hardware16@stemseed8-s*.jsonl.gz "$STEM"/whole/hardware16@now-s*.jsonl.gz "$WORK"/
cp "$STEM"/whole/study.json "$WORK"/study.json
echo "build $(git rev-parse --short HEAD)" > "$OUT/sitting.log"
echo "study $(date -u +%FT%TZ)" >> "$OUT/sitting.log"
python3 bench/perf_tuning/study.py run --ops "$STUDY/ops.txt" --model build/study/perf-heldout.json \
  --label cols --out "$WORK" --budget 96 --seeds 1,2,3,4,5,6 --strategies hardware16 \
  --glimpse "$G" >> "$OUT/sitting.log" 2>&1
recheck_sitting "$WORK" "$OUT"
gzip -9 -f "$OUT/recheck.json"
cp "$WORK"/study.json "$OUT/"
for db in "$WORK"/hardware16@cols-s*.db; do
  "$G" db export --db "$db" | gzip -9 > "$OUT/$(basename "$db" .db).jsonl.gz"
done
cp "$WORK"/hardware16@cols-s*.log "$OUT/"
