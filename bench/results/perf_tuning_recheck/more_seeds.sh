#!/bin/bash
# The seventh study with three more seeds (4–6) of the 16-measurement strategies, to tell
# hardware16 from hardware16-recheck and learned16-recheck (perf_tuning.md, "Seventh study").
# Runs beside the first sitting's (their databases copied into the folder, the same model file),
# then every run's incumbents — the first sitting's too — re-timed again side by side. Run from
# the repository root after run.sh, with nothing else running:
#   bash bench/results/perf_tuning_recheck/more_seeds.sh
set -euo pipefail
source bench/perf_tuning/recheck_sitting.sh
HERE=bench/results/perf_tuning_recheck
OUT=$HERE/more_seeds
G=${GLIMPSE:-build/ci/glimpse}
BENCH=${BENCH:-build/ci/bench/bench_cpu_templates}
WORK=build/study/recheck_more
rm -rf "$WORK" && mkdir -p "$WORK"
cp build/study/recheck/*.db build/study/recheck/study.json "$WORK"/
echo "build $(git rev-parse --short HEAD)" > "$OUT/sitting.log"
echo "study $(date -u +%FT%TZ)" >> "$OUT/sitting.log"
python3 bench/perf_tuning/study.py run --ops "$HERE/ops.txt" --model build/study/perf-heldout.json \
  --out "$WORK" --budget 96 --seeds 4,5,6 \
  --strategies learned16-recheck,hardware16,hardware16-recheck --glimpse "$G" >> "$OUT/sitting.log" 2>&1
recheck_sitting "$WORK" "$OUT"
GLIMPSE=$G python3 "$HERE/choice_bound.py" "$WORK" "$OUT/recheck.json" > "$OUT/choice_bound.md"
gzip -9 -f "$OUT/recheck.json"
python3 bench/perf_tuning/study.py drift --out "$WORK" --glimpse "$G" > "$OUT/drift.txt" 2>&1 || true
cp "$WORK"/study.json "$OUT/"
for db in "$WORK"/*-s[456].db; do "$G" db export --db "$db" | gzip -9 > "$OUT/$(basename "$db" .db).jsonl.gz"; done
cp "$WORK"/*-s[456].log "$OUT/"
