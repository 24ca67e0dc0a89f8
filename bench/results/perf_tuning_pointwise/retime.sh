#!/bin/bash
# A second re-timing of every run sitting.sh re-timed (build/study/pointwise, as sitting.sh left
# it), into sitting/retime2/. Run from the repository root after sitting.sh, with nothing else
# running: bash bench/results/perf_tuning_pointwise/retime.sh
set -euo pipefail
source bench/perf_tuning/recheck_sitting.sh
OUT=bench/results/perf_tuning_pointwise/sitting/retime2
G=${GLIMPSE:-build/ci/glimpse}
BENCH=${BENCH:-build/ci/bench/bench_cpu_templates}
mkdir -p "$OUT"
echo "build $(git rev-parse --short HEAD)" > "$OUT/sitting.log"
recheck_sitting build/study/pointwise "$OUT"
gzip -9 -f "$OUT/recheck.json"
