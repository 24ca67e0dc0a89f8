#!/bin/bash
# Zen 4, 2026-12-05 23:53–00:10 UTC: the fourth strategy, hardware16@efficiency — --hardware-budget
# 16 on a transfer model with the same rows as hardware16's (the roofline's terms and the
# schedule's ratios, trained without MobileNet-v2 and ResNet-50) that learns ln(time / the
# roofline's estimate) (--xgb-target log-efficiency), seeds 1-9, into run.sh's study so that the
# best known counts every run. From the repository root, after run.sh and run_choose.sh:
#   bench/results/perf_tuning_schedule/run_efficiency.sh [OUT]
set -e
OUT=${1:-build/study-schedule}
CORPUS=data/corpus/cpu-amd-epyc.jsonl.gz
PROFILE=data/hardware/cpu_machine_profile_amd_epyc.json
[ -f "$OUT/heldout-xgb-efficiency.json" ] || build/ci/glimpse train perf-model --model xgb \
  --corpus "$CORPUS" --exclude-model mobilenet_v2 --exclude-model resnet50 \
  --xgb-roofline-profile "$PROFILE" --xgb-schedule --xgb-target log-efficiency \
  --out "$OUT/heldout-xgb-efficiency.json"
GLIMPSE=build/ci/glimpse bench/perf_tuning/study.py run --ops bench/results/perf_tuning_zen3/ops.txt \
  --model "$OUT/heldout-xgb-efficiency.json" --label efficiency --strategies hardware16 \
  --out "$OUT/study" --budget 16 --seeds 1,2,3,4,5,6,7,8,9
bench/perf_tuning/study.py summarize --out "$OUT/study" --corpus "$CORPUS" \
  --json "$OUT/study/summary.json" > "$OUT/study/summary.md"
