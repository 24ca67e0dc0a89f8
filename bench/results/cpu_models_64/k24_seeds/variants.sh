#!/bin/bash
# MobileNet-v2's K = 24 1x1 layers on AVX-512: candidate conv2d seeds for K no multiple of 16
# lanes (output-channel block kb, columns cols, input-channel block cb), each timed alone.
# Usage: variants.sh [path/to/bench_cpu_templates] > variants.txt
B=${1:-$(git rev-parse --show-toplevel)/build/ci/bench/bench_cpu_templates}
for spec in "96 32" "96 16" "144 16"; do
  set -- $spec; C=$1; cb=$2
  op="conv2d:N=1,C=$C,H=56,W=56,K=24,R=1,S=1,bias=1"
  for kc in "24 14" "24 7" "8 28" "8 14"; do
    set -- $kc; kb=$1; cols=$2
    cfg="{\"layout\":\"NCHWc\",\"tile_k\":[$((24/kb)),1,$kb],\"tile_oh\":[56,1],\"tile_ow\":[1,$((56/cols)),$cols],\"tile_c\":[$((C/cb)),$cb],\"order\":[0,2,3,1,4],\"parallel\":\"oh\",\"vectorize\":1,\"unroll\":1}"
    t=$("$B" --op "$op" --config "$cfg" | grep -o '| [0-9.]* ms |')
    echo "C=$C cb=$cb kb=$kb cols=$cols $t"
  done
done
