#!/bin/bash
# The runs of ../perf_eval_kinds.md after the held-out-kind evaluation: the four transfer models
# of ../perf_tuning_zen3.md (build/study-zen3/heldout-*.json, made by the commands there) scored
# per operator on the Zen 4 corpus's held-out-models split, on the Zen 3 study's random-tuner
# records (uniform samples) and on all its records, then joined with the study's tuning quality.
# Usage, from the repository root: bench/results/perf_eval_kinds/make.sh [OUT_DIR]
set -e
OUT=${1:-build/perf_eval_kinds}
GLIMPSE=${GLIMPSE:-build/ci/glimpse}
STUDY=bench/results/perf_tuning_zen3
M=build/study-zen3
mkdir -p "$OUT"
corpus() {  # corpus NAME DB_EXPORT...: the study's database exports as one corpus
  local name=$1; shift
  rm -f "$OUT/$name.db"*
  for export in "$@"; do
    zcat "$export" > "$OUT/part.jsonl"
    "$GLIMPSE" db import --db "$OUT/$name.db" "$OUT/part.jsonl" > /dev/null
  done
  "$GLIMPSE" corpus export --db "$OUT/$name.db" --out "$OUT/$name.jsonl.gz"
}
corpus zen3-study $(ls "$STUDY"/*.jsonl.gz)
corpus zen3-random "$STUDY"/random-s1.jsonl.gz "$STUDY"/random-s2.jsonl.gz
P=file:$M/heldout-xgb.json,file:$M/heldout-xgb-roofline.json
P=$P,file:$M/heldout-xgb-rank.json,file:$M/heldout-xgb-rank-roofline.json,roofline
E="$GLIMPSE perf-model evaluate --predictors $P --profile data/hardware/cpu_machine_profile_amd_epyc.json --per-operator --quiet"
$E --corpus data/corpus/cpu-amd-epyc.jsonl.gz --split models --json "$OUT/zen4-models.json" > "$OUT/zen4-models.txt"
$E --corpus "$OUT/zen3-random.jsonl.gz" --split none --json "$OUT/zen3-random.json" > "$OUT/zen3-random.txt"
$E --corpus "$OUT/zen3-study.jsonl.gz" --split none --json "$OUT/zen3-study.json" > "$OUT/zen3-study.txt"
python3 bench/perf_eval/predicts_tuning.py --summary "$STUDY/summary.json" \
  --strategy xgb-transfer=$M/heldout-xgb.json --strategy xgb-transfer@roofline=$M/heldout-xgb-roofline.json \
  --strategy xgb-transfer@rank=$M/heldout-xgb-rank.json \
  --strategy xgb-transfer@rank-roofline=$M/heldout-xgb-rank-roofline.json \
  --eval zen4-uniform="$OUT/zen4-models.json" --eval zen3-uniform="$OUT/zen3-random.json" \
  --eval zen3-study="$OUT/zen3-study.json" > "$OUT/predicts_tuning.md"
