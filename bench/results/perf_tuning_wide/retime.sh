#!/bin/bash
# Another re-timing sitting of every run run.sh re-timed (the seventh study's committed runs and
# hardware16@wide, seeds 1–6), from their committed exports, into NAME/ beside this script: to
# see whether a machine instance that re-timed them low does so again (perf_tuning.md, "Why that
# sitting's level was low"). Run from the repository root with nothing else running:
#   bash bench/results/perf_tuning_wide/retime.sh NAME
set -euo pipefail
source bench/perf_tuning/recheck_sitting.sh
HERE=bench/results/perf_tuning_wide
STUDY=bench/results/perf_tuning_recheck
OUT=$HERE/${1:?give the output folder name, e.g. second_retiming}
G=${GLIMPSE:-build/ci/glimpse}
BENCH=${BENCH:-build/ci/bench/bench_cpu_templates}
WORK=build/study/wide_retime
rm -rf "$WORK"
mkdir -p "$WORK" "$OUT"
cp "$STUDY"/*.jsonl.gz "$STUDY"/more_seeds/*.jsonl.gz "$STUDY"/diverse/*.jsonl.gz \
  "$HERE"/hardware16@wide-s*.jsonl.gz "$WORK"/
cp "$HERE"/study.json "$WORK"/study.json
echo "build $(git rev-parse --short HEAD)" > "$OUT/sitting.log"
recheck_sitting "$WORK" "$OUT"
gzip -9 -f "$OUT/recheck.json"
