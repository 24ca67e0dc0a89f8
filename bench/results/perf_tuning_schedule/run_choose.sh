#!/bin/bash
# The same study's third strategy, after run.sh: hardware16-choose — the first round two picks of
# each model (the schedule model's and the log-time one's), the faster model guiding the other
# three rounds — seeds 1-9, then the summary of all three strategies.
# From the repository root: bench/results/perf_tuning_schedule/run_choose.sh [OUT]
set -e
OUT=${1:-build/study-schedule}
GLIMPSE=build/ci/glimpse bench/perf_tuning/study.py run --ops bench/results/perf_tuning_zen3/ops.txt \
  --model "$OUT/heldout-xgb-schedule.json" --xgb-model "$OUT/heldout-xgb.json" \
  --strategies hardware16-choose --out "$OUT/study" --budget 16 --seeds 1,2,3,4,5,6,7,8,9
bench/perf_tuning/study.py summarize --out "$OUT/study" --corpus data/corpus/cpu-amd-epyc.jsonl.gz \
  --json "$OUT/study/summary.json" > "$OUT/study/summary.md"
