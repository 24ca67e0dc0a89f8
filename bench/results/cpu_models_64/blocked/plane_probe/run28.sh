#!/bin/bash
# The 28×28 1×1 stride-2 layer of ResNet-18 (C=128, 28×28 → K=256, 14×14, NCHW in and out), whose
# 196-position plane no 16-position tile divides: plane_pad.cc (the plane padded to whole tiles;
# MODE 0 compaction then GEMM as the template builds it, 2 the GEMM alone, 3 the compaction alone)
# beside row.cc (no compaction: a tile of channels × one output row, the input read in place at
# stride 2, as MetaSchedule's pick does it). Same harness as run.sh (probe_timing.h).
#   OUT=/dir [ROUNDS=3] ./run28.sh
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/plane_probe28}
mkdir -p "$out"
cc="g++ -O3 -march=native -mprefer-vector-width=512 -fopenmp"
cp "$here/probe_timing.h" "$here/plane_pad.cc" "$here/row.cc" "$out/"
cd "$out"
for m in 0 2 3; do $cc -DMODE=$m plane_pad.cc -o plane_m$m; done
$cc row.cc -o row_k16
$cc -DK2=8 row.cc -o row_k8
for round in $(seq "${ROUNDS:-3}"); do
  for b in plane_m0 plane_m2 plane_m3 row_k16 row_k8; do
    echo "round $round $b: $(OMP_NUM_THREADS=2 OMP_PROC_BIND=true ./$b)"
  done
done
