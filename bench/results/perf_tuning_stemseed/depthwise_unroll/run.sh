#!/bin/bash
# Times variants of the depthwise rows seed on MobileNet-v2's ten depthwise layers with plain
# activations (layers.txt; layer i's candidates in PREFIX<i>.txt), ROUNDS rounds alternating.
# Run from the repository root:
#   bench/results/perf_tuning_stemseed/depthwise_unroll/run.sh l 3   # unroll 0/1 × parallel c / c_oh (dw.log)
#   bench/results/perf_tuning_stemseed/depthwise_unroll/run.sh m 5   # the seed against unroll 0 (dw2.log)
HERE=bench/results/perf_tuning_stemseed/depthwise_unroll
PREFIX=${1:-l}; ROUNDS=${2:-3}
T=bench/results/perf_tuning_stemseed/seed_timings/time.sh
i=0
while read -r op; do
  B=build/ci/bench/bench_cpu_templates $T "$op" "$HERE/$PREFIX$i.txt" "$ROUNDS" | sed "s/^/l$i /"
  i=$((i+1))
done < "$HERE/layers.txt"
