#!/bin/bash
# MobileNet-v2's first layer (3x3 stride 2, 3 -> 32 channels): hand kernels, the template's code
# (as generated and edited) and memory floors under the runner's sweep ("swept"; "clflushed": then
# the operands clflushed too, as the runner does), warm, with a clean sweep, on 2 MiB pages, with
# non-temporal stores or prefetching; and (BENCH=bench_cpu_templates) the template's kernels for
# the same register tiles by the runner's protocol. ROUNDS rounds rotating.
# Usage: [BENCH=…] probe.sh OUTDIR
set -eu
HERE=$(cd "$(dirname "$0")" && pwd); OUT=${1:?output dir}; ROUNDS=${ROUNDS:-3}
mkdir -p "$OUT"; cd "$OUT"
F="-O3 -march=native -fopenmp"
build() { g++ $F "${@:2}" "$HERE/flushed_harness.cc" -o "$1"; }
H="$HERE/hand_kernel.cc"
build b2x7 -DINTCLAMP "$H"                                   # 2 output blocks x 7 columns
build b2x7_nt -DINTCLAMP -DNTSTORE "$H"
build b1x8 -DINTCLAMP -DKB=1 -DCOLS=8 -DKINNER "$H"          # 1 block x 8 columns
build b1x8_flat -DINTCLAMP -DKB=1 -DCOLS=8 -DKINNER -DFLAT_INDEX "$H"
build b1x8_pf -DINTCLAMP -DKB=1 -DCOLS=8 -DKINNER -DPF_IN -DPF_OUT "$H"
build template_1x8 "$HERE/template_1x8.cc"                   # as generated
build template_1x8_prefetch -DPREFETCH "$HERE/template_1x8.cc"
build template_1x8_edited -DPREFETCH -DROW_POINTERS "$HERE/template_1x8.cc"
build floor "$HERE/memory_floor.cc"
build floor_nt -DNTSTORE "$HERE/memory_floor.cc"
build floor_read -DNOWRITE "$HERE/memory_floor.cc"
build floor_write -DNOREAD "$HERE/memory_floor.cc"
BENCH=${BENCH:-}
MN='conv2d:N=1,C=3,H=224,W=224,K=32,R=3,S=3,stride=2,pad=1,dilation=1,bias=1,relu=0,relu6=1,out_block=16'
T='"layout":"NCHWc","padding":"guard","parallel":"oh","tile_c":[3,1],"tile_oh":[112,1],"unroll":1,"vectorize":1'
SEED_2x7="{$T,\"order\":[0,2,3,1,4],\"tile_k\":[1,2,16],\"tile_ow\":[16,1,7]}"
TILE_1x8="{$T,\"order\":[0,2,3,4,1],\"tile_k\":[1,2,16],\"tile_ow\":[14,1,8]}"
runner() {  # The runner pins its own threads: OMP_PROC_BIND from here would put both on one CPU.
  env -u OMP_PROC_BIND -u OMP_NUM_THREADS "$BENCH" --threads 2 "$@" 2>&1
}
[ -n "$BENCH" ] && runner --peak-only | grep -i peak
export OMP_NUM_THREADS=2 OMP_PROC_BIND=true
for round in $(seq 1 "$ROUNDS"); do
  for run in "b2x7 swept" "b2x7 clflushed CLFLUSH=1" "b2x7 warm NOFLUSH=1" "b2x7 clean CLEAN=1" \
             "b2x7 huge HUGE=1" "b2x7_nt swept" "b1x8 swept" "b1x8 warm NOFLUSH=1" \
             "b1x8_flat swept" "b1x8_flat warm NOFLUSH=1" "b1x8_pf swept" \
             "b1x8_pf clflushed CLFLUSH=1" "b1x8_pf warm NOFLUSH=1" "template_1x8 swept" \
             "template_1x8 clflushed CLFLUSH=1" "template_1x8 warm NOFLUSH=1" \
             "template_1x8_prefetch swept" "template_1x8_prefetch clflushed CLFLUSH=1" \
             "template_1x8_edited swept" "template_1x8_edited clflushed CLFLUSH=1" \
             "template_1x8_edited warm NOFLUSH=1" "floor swept" "floor clflushed CLFLUSH=1" \
             "floor_nt swept" "floor_read swept" "floor_write swept"; do
    set -- $run
    echo "round$round $1 $2 $(env ${3:-X=1} ./"$1" 300)"
  done
  if [ -n "$BENCH" ]; then
    for tile in SEED_2x7 TILE_1x8; do
      echo "round$round template_$tile runner $(runner --op "$MN" --config "${!tile}" | grep '^| conv2d')"
    done
  fi
done
[ -n "$BENCH" ] && runner --peak-only | grep -i peak
exit 0
