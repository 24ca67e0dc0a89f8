#!/bin/bash
# The store experiment of ../../../cpu_models_64.md ("What the store costs elsewhere"): builds
# v0_generated.cc (the kernel glimpse generated for ResNet-50's 64 -> 256-channel 1x1 layer at
# 56x56 with its blocked seed) and each variant (v0 with a *.patch applied), then times each alone
# on one thread, three runs in turn. v2 writes a wrong (blocked) layout and is timed only as a
# bound. Usage: bench/results/cpu_models_64/stem_seeds/store_experiment/run.sh
set -e
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-O3 -march=native -fPIC -shared -fopenmp -std=c++17 -w)
c++ -O2 -o "$work/harness" "$here/harness.cc" -ldl
c++ "${flags[@]}" "$here/v0_generated.cc" -o "$work/v0_generated.so"
variants=(v0_generated)
for patch in "$here"/v*.patch; do
  name=$(basename "$patch" .patch)
  cp "$here/v0_generated.cc" "$work/$name.cc"
  patch -s "$work/$name.cc" < "$patch"
  c++ "${flags[@]}" "$work/$name.cc" -o "$work/$name.so"
  variants+=("$name")
done
for run in 1 2 3; do
  for name in "${variants[@]}"; do
    # input, weight, bias and output floats of the 1x1 layer C=64 -> K=256 at 56x56
    OMP_NUM_THREADS=1 "$work/harness" "$work/$name.so" glimpse_kernel_2_0 200704 16384 256 802816
  done
done
