#!/bin/bash
# Times four variants of the depthwise rows seed (unroll 0/1 × parallel c / c_oh) on MobileNet-v2's
# ten depthwise layers with plain activations, 3 rounds. Run from the repository root.
T=bench/results/perf_tuning_stemseed/seed_timings/time.sh
i=0
while read -r op; do
  B=build/ci/bench/bench_cpu_templates $T "$op" bench/results/perf_tuning_stemseed/depthwise_unroll/l$i.txt 3 | sed "s/^/l$i /"
  i=$((i+1))
done < bench/results/perf_tuning_stemseed/depthwise_unroll/layers.txt
