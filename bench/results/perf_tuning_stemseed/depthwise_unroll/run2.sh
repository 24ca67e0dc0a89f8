#!/bin/bash
# Times the depthwise rows seed (two channels interleaved) unrolled and not on MobileNet-v2's ten
# depthwise layers with plain activations, 5 rounds alternating. Run from the repository root.
T=bench/results/perf_tuning_stemseed/seed_timings/time.sh
i=0
while read -r op; do
  B=build/ci/bench/bench_cpu_templates $T "$op" bench/results/perf_tuning_stemseed/depthwise_unroll/m$i.txt 5 | sed "s/^/l$i /"
  i=$((i+1))
done < bench/results/perf_tuning_stemseed/depthwise_unroll/layers.txt
