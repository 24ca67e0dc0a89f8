#!/bin/bash
# hardware16 with AutoTVM's diversity filter (strategy hardware16-diverse: each round after the
# first takes the 4 most diverse of the model's 8 best), seeds 1–6 on the seventh study's six
# operators, beside that study's runs (the same model file and databases folder); then every run's
# incumbents — the earlier strategies' too — re-timed side by side (the study's fourth re-timing).
# Needs build/study/recheck_more (run.sh, more_seeds.sh); run from the repository root with
# nothing else running:
#   bash bench/results/perf_tuning_recheck/diverse.sh
set -euo pipefail
source bench/perf_tuning/recheck_sitting.sh
HERE=bench/results/perf_tuning_recheck
OUT=$HERE/diverse
G=${GLIMPSE:-build/ci/glimpse}
BENCH=${BENCH:-build/ci/bench/bench_cpu_templates}
WORK=build/study/recheck_more
mkdir -p "$OUT"
echo "build $(git rev-parse --short HEAD)" > "$OUT/sitting.log"
echo "study $(date -u +%FT%TZ)" >> "$OUT/sitting.log"
python3 bench/perf_tuning/study.py run --ops "$HERE/ops.txt" --model build/study/perf-heldout.json \
  --out "$WORK" --budget 96 --seeds 1,2,3,4,5,6 \
  --strategies hardware16-diverse --glimpse "$G" >> "$OUT/sitting.log" 2>&1
recheck_sitting "$WORK" "$OUT"
GLIMPSE=$G python3 "$HERE/choice_bound.py" "$WORK" "$OUT/recheck.json" > "$OUT/choice_bound.md"
gzip -9 -f "$OUT/recheck.json"
python3 bench/perf_tuning/study.py drift --out "$WORK" --glimpse "$G" > "$OUT/drift.txt" 2>&1 || true
cp "$WORK"/study.json "$OUT/"
for db in "$WORK"/hardware16-diverse-s*.db; do
  "$G" db export --db "$db" | gzip -9 > "$OUT/$(basename "$db" .db).jsonl.gz"
done
cp "$WORK"/hardware16-diverse-s*.log "$OUT/"
