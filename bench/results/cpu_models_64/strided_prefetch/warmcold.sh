#!/bin/bash
# ResNet-18's two stride-2 3x3 @1000 picks by the runner's protocol, cold and with
# --warm-activations, alternating (log: warm_cold.log). BENCH defaults to the build's binary.
B=${BENCH:-build/ci/bench/bench_cpu_templates}
run() { env -u OMP_PROC_BIND -u OMP_NUM_THREADS "$@"; }
A='conv2d:N=1,C=64,H=56,W=56,K=128,R=3,S=3,stride=2,pad=1,dilation=1,bias=1,relu=1,in_block=16,out_block=16'
AC='{"layout": "NCHWc", "order": [0, 2, 4, 3, 1], "padding": "guard", "parallel": "oh", "tile_c": [4, 16], "tile_k": [1, 8, 16], "tile_oh": [28, 1], "tile_ow": [2, 1, 14], "unroll": 1, "vectorize": 1}'
C='conv2d:N=1,C=256,H=14,W=14,K=512,R=3,S=3,stride=2,pad=1,dilation=1,bias=1,relu=1,in_block=16,out_block=16'
CC='{"layout": "NCHWc", "order": [4, 0, 2, 3, 1], "padding": "guard", "parallel": "k", "tile_c": [16, 16], "tile_k": [16, 2, 16], "tile_oh": [7, 1], "tile_ow": [1, 1, 7], "unroll": 1, "vectorize": 1}'
run $B --peak-only --threads 2 2>&1 | grep -i peak
for r in 1 2 3; do
  for w in "" --warm-activations; do
    echo "r$r 56s2 $w $(run $B --threads 2 $w --op "$A" --config "$AC" 2>&1 | grep '^| conv2d' | awk -F'|' '{print $5, $8}')"
    echo "r$r 14s2 $w $(run $B --threads 2 $w --op "$C" --config "$CC" 2>&1 | grep '^| conv2d' | awk -F'|' '{print $5, $8}')"
  done
done
