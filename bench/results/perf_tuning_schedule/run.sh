#!/bin/bash
# Zen 4, 2026-12-05: 16 measurements per held-out operator in rounds of 4 (--hardware-budget 16)
# on two transfer models trained without MobileNet-v2 and ResNet-50 — the log-time model on the
# loop features (the recommended default, hardware16-transfer) and the same with the roofline's
# terms and the schedule's ratios (hardware16) — interleaved per operator, seeds 1-3.
# From the repository root: bench/results/perf_tuning_schedule/run.sh [SEEDS] [OUT]
set -e
SEEDS=${1:-1,2,3}
OUT=${2:-build/study-schedule}
mkdir -p "$OUT"
CORPUS=data/corpus/cpu-amd-epyc.jsonl.gz
PROFILE=data/hardware/cpu_machine_profile_amd_epyc.json
EXCLUDE=(--exclude-model mobilenet_v2 --exclude-model resnet50)
[ -f "$OUT/heldout-xgb.json" ] || build/ci/glimpse train perf-model --model xgb \
  --corpus "$CORPUS" "${EXCLUDE[@]}" --out "$OUT/heldout-xgb.json"
[ -f "$OUT/heldout-xgb-schedule.json" ] || build/ci/glimpse train perf-model --model xgb \
  --corpus "$CORPUS" "${EXCLUDE[@]}" --xgb-roofline-profile "$PROFILE" --xgb-schedule \
  --out "$OUT/heldout-xgb-schedule.json"
GLIMPSE=build/ci/glimpse bench/perf_tuning/study.py run --ops bench/results/perf_tuning_zen3/ops.txt \
  --model "$OUT/heldout-xgb-schedule.json" --xgb-model "$OUT/heldout-xgb.json" \
  --strategies hardware16,hardware16-transfer --out "$OUT/study" --budget 16 --seeds "$SEEDS"
bench/perf_tuning/study.py summarize --out "$OUT/study" --corpus "$CORPUS" \
  --json "$OUT/study/summary.json" > "$OUT/study/summary.md"
