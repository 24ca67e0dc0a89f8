#!/bin/bash
# hardware16 with this build on all six of the seventh study's operators, seeds 1–6, as
# hardware16@now: the strategy as it stands with the plain-output stem seed, beside every run
# second.sh re-timed (the seventh study's, hardware16@wide, both forms of the stem seed), then
# all re-timed side by side into whole/. Run from the repository root after second.sh, with
# nothing else running: bash bench/results/perf_tuning_stemseed/whole.sh
set -euo pipefail
source bench/perf_tuning/recheck_sitting.sh
HERE=bench/results/perf_tuning_stemseed
OUT=$HERE/whole
STUDY=bench/results/perf_tuning_recheck
WIDE=bench/results/perf_tuning_wide
G=${GLIMPSE:-build/ci/glimpse}
BENCH=${BENCH:-build/ci/bench/bench_cpu_templates}
WORK=build/study/stemseed_whole
rm -rf "$WORK"
mkdir -p "$WORK" "$OUT"
cp "$STUDY"/*.jsonl.gz "$STUDY"/more_seeds/*.jsonl.gz "$STUDY"/diverse/*.jsonl.gz \
  "$WIDE"/hardware16@wide-s*.jsonl.gz "$HERE"/hardware16@stemseed-s*.jsonl.gz \
  "$HERE"/eight/hardware16@stemseed8-s*.jsonl.gz "$WORK"/
cp "$HERE"/eight/study.json "$WORK"/study.json
echo "build $(git rev-parse --short HEAD)" > "$OUT/sitting.log"
echo "study $(date -u +%FT%TZ)" >> "$OUT/sitting.log"
python3 bench/perf_tuning/study.py run --ops "$STUDY/ops.txt" --model build/study/perf-heldout.json \
  --label now --out "$WORK" --budget 96 --seeds 1,2,3,4,5,6 --strategies hardware16 \
  --glimpse "$G" >> "$OUT/sitting.log" 2>&1
recheck_sitting "$WORK" "$OUT"
gzip -9 -f "$OUT/recheck.json"
cp "$WORK"/study.json "$OUT/"
for db in "$WORK"/hardware16@now-s*.db; do
  "$G" db export --db "$db" | gzip -9 > "$OUT/$(basename "$db" .db).jsonl.gz"
done
cp "$WORK"/hardware16@now-s*.log "$OUT/"
