#!/bin/bash
# Times each named configuration of CANDS (lines "name<TAB>configuration JSON") on operator OP
# with bench_cpu_templates (2 threads, the runner's default protocol), ROUNDS rounds alternating;
# prints "r<round> <name> <GFLOP/s> <time> ms" lines. Run from the repository root, e.g.
#   bench/results/perf_tuning_stemseed/seed_timings/time.sh \
#     conv2d:N=1,C=3,H=224,W=224,K=32,R=3,S=3,stride=2,pad=1,dilation=1,bias=1,relu=0 \
#     bench/results/perf_tuning_stemseed/seed_timings/g9.txt 3
OP=$1; CANDS=$2; ROUNDS=${3:-3}
B=${B:-build/ci/bench/bench_cpu_templates}
for round in $(seq 1 "$ROUNDS"); do
  while IFS=$'\t' read -r name cfg; do
    t=$("$B" --threads 2 --op "$OP" --config "$cfg" 2>&1 | grep "^| conv2d\|^| dense\|^| depth" |
      awk -F'|' '{print $5, $8}')
    echo "r$round $name $t"
  done < "$CANDS"
done
