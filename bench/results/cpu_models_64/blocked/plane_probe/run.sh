#!/bin/bash
# The 1×1 stride-2 layer of ResNet-18 (C=64, 56×56 → K=128, 28×28, NCHW in and out): glimpse's best
# generated kernel (NCHWc_strided) and two hand edits of it, beside a hand-written "plane" kernel —
# the input compacted to [C][OH·OW], then a GEMM over the flattened output plane, vectors along
# the positions, output channels broadcast — all in one harness (harness.cc / plane.cc, their
# timing and check in probe_timing.h: 300 calls, a 64 MiB read-modify-write sweep before each,
# median), alternating, ROUNDS rounds.
#   OUT=/dir [ROUNDS=3] ./run.sh
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/plane_probe}
mkdir -p "$out"
cc="g++ -O3 -march=native -mprefer-vector-width=512 -fopenmp"
cp "$here"/*.inc "$here"/*.h "$here/harness.cc" "$here/plane.cc" "$out/"
cd "$out"
for v in generated generated_store_along_ow generated_store_along_ow_pack_tiles; do
  sed "s/gen.inc/$v.inc/" harness.cc > "h_$v.cc" && $cc "h_$v.cc" -o "h_$v"
done
$cc -DK2=16 -DP2=16 plane.cc -o plane_k16_p16
$cc -DK2=8 -DP2=16 plane.cc -o plane_k8_p16
$cc -DK2=4 -DP2=112 plane.cc -o plane_k4_p112
$cc -DK2=4 -DP2=112 -DCOMPACT=0 plane.cc -o plane_k4_p112_gemm_only
for round in $(seq "${ROUNDS:-3}"); do
  for b in h_generated h_generated_store_along_ow h_generated_store_along_ow_pack_tiles \
           plane_k16_p16 plane_k8_p16 plane_k4_p112 plane_k4_p112_gemm_only; do
    echo "round $round $b: $(OMP_NUM_THREADS=2 OMP_PROC_BIND=true ./$b)"
  done
done
