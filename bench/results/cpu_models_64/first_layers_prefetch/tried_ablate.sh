#!/bin/bash
# ablate.sh LAYER ROUNDS: best and median GFLOP/s per variant over ROUNDS interleaved rounds.
# Ran once (2026-12-06 06:06-06:13) against a bench_cpu_templates built with temporary switches in
# the generator, not in the repository: EXP_NO_PF (no prefetch statements), EXP_NO_PTR (no load
# pointers), EXP_NO_SKIP (no padding-row skip inside the channel loop, a rule of that build since
# removed), EXP_NO_IMPLIED (guards implied by a useful range kept; also removed). "old" is b2399c8.
# Kept as the record of tried_ablate.log, not to be rerun as is.
MN='conv2d:N=1,C=3,H=224,W=224,K=32,R=3,S=3,stride=2,pad=1,dilation=1,bias=1,relu=0,relu6=1,out_block=16'
VG='conv2d:N=1,C=3,H=224,W=224,K=64,R=3,S=3,stride=1,pad=1,dilation=1,bias=1,relu=1,out_block=16'
RS='conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3,dilation=1,bias=1,relu=1,out_block=16'
T='"layout":"NCHWc","padding":"guard","tile_c":[3,1],"unroll":1,"vectorize":1'
MN_C="{$T,\"parallel\":\"oh\",\"order\":[0,2,3,4,1],\"tile_k\":[1,2,16],\"tile_oh\":[112,1],\"tile_ow\":[14,1,8]}"
VG_C="{$T,\"parallel\":\"oh\",\"order\":[0,2,3,1,4],\"tile_k\":[2,2,16],\"tile_oh\":[224,1],\"tile_ow\":[32,1,7]}"
RS_C="{$T,\"parallel\":\"oh\",\"order\":[0,2,3,1,4],\"tile_k\":[2,2,16],\"tile_oh\":[112,1],\"tile_ow\":[16,1,7]}"
L=$1; op=${!L}; cv=${L}_C; cfg=${!cv}
declare -A V=( [old]="" [all]="" [noskip]="EXP_NO_SKIP=1" [noskip_nopf]="EXP_NO_SKIP=1 EXP_NO_PF=1" [noptr]="EXP_NO_PTR=1" [nopf]="EXP_NO_PF=1" [none]="EXP_NO_PF=1 EXP_NO_PTR=1 EXP_NO_SKIP=1 EXP_NO_IMPLIED=1" )
for r in $(seq 1 $2); do
  for v in old all noskip noskip_nopf noptr nopf none; do
    b=/tmp/exp_bench; [ $v = old ] && b=/tmp/old_bench_cpu_templates
    g=$(env -u OMP_PROC_BIND -u OMP_NUM_THREADS ${V[$v]} $b --threads 2 --op "$op" --config "$cfg" 2>&1 | grep '^| conv2d' | awk -F'|' '{print $5}')
    echo "$L $v $g"
  done
done
