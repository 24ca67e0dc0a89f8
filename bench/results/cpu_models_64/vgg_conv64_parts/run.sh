#!/bin/bash
# Where the time of VGG-16's 64-channel 224x224 3x3 layer goes (../../cpu_models_64.md, "VGG-16's
# 64-channel 224x224 layer, part by part"): builds v0_generated.cc (the kernel glimpse generated
# for the layer's first blocked seed) and the variants make_variants.py derives from it, then
# times each alone (../stem_seeds/store_experiment/harness.cc: 100 calls, each after a 64 MiB
# sweep) on 1 and 2 threads, two rounds in turn (run_output_*.txt: two runs of it).
# Usage: bench/results/cpu_models_64/vgg_conv64_parts/run.sh
set -e
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-O3 -march=native -fPIC -shared -fopenmp -std=c++17 -w)
c++ -O2 -o "$work/harness" "$here/../stem_seeds/store_experiment/harness.cc" -ldl
python3 "$here/make_variants.py" "$here" "$work"
cp "$here/v0_generated.cc" "$work/"
variants=(v0_generated v1_no_pack v2_pack_only v3_blocked_store v4_no_pack_blocked v5_pack_strips)
for name in "${variants[@]}"; do c++ "${flags[@]}" "$work/$name.cc" -o "$work/$name.so"; done
for threads in 1 2; do
  for round in 1 2; do
    for name in "${variants[@]}"; do
      # input, weight, bias and output floats of the layer
      echo -n "threads $threads round $round: "
      OMP_NUM_THREADS=$threads "$work/harness" "$work/$name.so" glimpse_kernel_2_0 3211264 36864 64 \
        3211264 | sed "s#$work/##"
    done
  done
done
