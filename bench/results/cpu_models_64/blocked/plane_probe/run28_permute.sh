#!/bin/bash
# The row-at-stride-2 structure of run28.sh (row.cc) with the stride-2 load written three ways,
# beside the plane (compaction then GEMM): row_stage (-DLOAD_STAGED) copies the even lanes once
# per input channel into a 16-float buffer (g++'s shuffles, then a store and a reload); row_perm
# (-DLOAD_PERMUTE) loads two vectors and takes their even lanes with __builtin_shuffle (one
# vpermt2ps, as MetaSchedule's LLVM code does); row_perm_ohk adds -DOH_OUTER: the output row
# outside the channel tile in the parallel loop.
#   OUT=/dir [ROUNDS=3] ./run28_permute.sh
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/plane_probe28_permute}
mkdir -p "$out"
cc="g++ -O3 -march=native -mprefer-vector-width=512 -fopenmp"
cp "$here/probe_timing.h" "$here/plane_pad.cc" "$here/row.cc" "$out/"
cd "$out"
$cc -DMODE=0 plane_pad.cc -o plane_m0
$cc -DLOAD_STAGED row.cc -o row_stage
$cc -DLOAD_PERMUTE row.cc -o row_perm
$cc -DLOAD_PERMUTE -DOH_OUTER row.cc -o row_perm_ohk
for round in $(seq "${ROUNDS:-3}"); do
  for b in plane_m0 row_stage row_perm row_perm_ohk; do
    echo "round $round $b: $(OMP_NUM_THREADS=2 OMP_PROC_BIND=true ./$b)"
  done
done
