#!/bin/bash
# Probe for the next template change on VGG-16's 512-channel 14×14 layer: its @256 pick as
# glimpse generates it (generated_k8.cc, from
#   glimpse compile vgg16 --layout blocked --db <vgg16_256's at256.db> -o DIR   → DIR/kernels.cc's
#   vgg16_k8 and its prepare function)
# timed beside hand-peeled variants of the same loop nest (variants.cc): the column tile loop
# ow0 (extent 2) as a compile-time constant, so that the guard on each column tap folds and the
# taps in the padding are not computed at all (peel_cols); with the kernel rows in the padding
# skipped too (peel_cols_rows); and with one `if` on row and column (peel_if_both). Every variant
# is checked equal to the generated kernel first. Flags are the CPU builder's. The sources are
# clang-formatted as the repository is (the generated one too: the same statements).
#   ./run.sh [ROUNDS]     (from this folder; needs g++ with OpenMP)
set -e
cd "$(dirname "$0")"
work=$(mktemp -d)
flags="-O3 -march=native -fopenmp -std=c++17 -w -mprefer-vector-width=512"
{ echo '#include <cstdint>'; cat generated_k8.cc; } > "$work/orig.cc"
g++ $flags -c "$work/orig.cc" -o "$work/orig.o"
g++ $flags -c variants.cc -o "$work/variants.o"
g++ $flags main.cc "$work/orig.o" "$work/variants.o" -o "$work/probe"
for threads in 1 2 1 2; do
  echo "threads $threads"
  OMP_NUM_THREADS=$threads OMP_PROC_BIND=true "$work/probe" "${1:-6}"
done
rm -rf "$work"
