#!/bin/bash
# The sixth study's runs re-timed side by side (perf_tuning.md, "The sixth study re-timed in one
# sitting"). study_build: with the study's own build (4f6d36d, built in a worktree:
#   git worktree add /tmp/wt4f 4f6d36d && cmake -S /tmp/wt4f -B /tmp/wt4f/build/old -G Ninja \
#     -DCMAKE_BUILD_TYPE=Release && ninja -C /tmp/wt4f/build/old bench_cpu_templates glimpse_cpu_worker
# then BENCH=/tmp/wt4f/build/old/bench/bench_cpu_templates); today: with this checkout's build.
# Usage (from the repository root): BENCH=... NAME=study_build bench/results/perf_tuning_cold/recheck/run.sh
set -euo pipefail
BENCH=${BENCH:-build/ci/bench/bench_cpu_templates}; NAME=${NAME:-today}
DIR=bench/results/perf_tuning_cold
env -u OMP_PROC_BIND -u OMP_NUM_THREADS GLIMPSE=${GLIMPSE:-build/ci/glimpse} \
  python3 bench/perf_tuning/study.py recheck --out "$DIR" --threads 2 --passes 3 \
  --bench "$BENCH" --json "$DIR/recheck/$NAME.json" > "$DIR/recheck/$NAME.md" 2> "$DIR/recheck/$NAME.log"
gzip -9 -f "$DIR/recheck/$NAME.json"
