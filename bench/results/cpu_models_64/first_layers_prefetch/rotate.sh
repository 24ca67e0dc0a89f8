#!/bin/bash
# The three 3-channel first layers (MobileNet-v2's 3×3 stride 2, VGG-16's 3×3, ResNet's 7×7 stride
# 2), rotating ROUNDS rounds over: the build before the prefetches (OLD) and this build (NEW) on the
# in-place seed (2 output blocks × 7 columns), on one block × 8 columns with the channel blocks
# outside the register tile (order c0 r s k1 c1), and, for MobileNet-v2, the 64-measurement pick of
# 2026-12-05; then oneDNN blocked. 2 threads, the runner's protocol (flushed operands, median of
# ≥ 3 calls and ≥ 0.05 s, output checked). Usage: OLD=… NEW=… BASE=… OUT=dir rotate.sh
set -u
OUT=${OUT:?output dir}; ROUNDS=${ROUNDS:-3}
NEW=${NEW:?bench_cpu_templates of this build}; OLD=${OLD:?bench_cpu_templates of the build before}
BASE=${BASE:?cpu_baselines}
mkdir -p "$OUT"
MN='conv2d:N=1,C=3,H=224,W=224,K=32,R=3,S=3,stride=2,pad=1,dilation=1,bias=1,relu=0,relu6=1,out_block=16'
VG='conv2d:N=1,C=3,H=224,W=224,K=64,R=3,S=3,stride=1,pad=1,dilation=1,bias=1,relu=1,out_block=16'
RS='conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3,dilation=1,bias=1,relu=1,out_block=16'
MN_B='conv2d:N=1,C=3,H=224,W=224,K=32,R=3,S=3,stride=2,pad=1,bias=1,relu=1'
VG_B='conv2d:N=1,C=3,H=224,W=224,K=64,R=3,S=3,pad=1,bias=1,relu=1'
RS_B='conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3,bias=1,relu=1'
T='"layout":"NCHWc","padding":"guard","tile_c":[3,1],"unroll":1,"vectorize":1'
MN_SEED="{$T,\"parallel\":\"oh\",\"order\":[0,2,3,1,4],\"tile_k\":[1,2,16],\"tile_oh\":[112,1],\"tile_ow\":[16,1,7]}"
MN_1x8="{$T,\"parallel\":\"oh\",\"order\":[0,2,3,4,1],\"tile_k\":[1,2,16],\"tile_oh\":[112,1],\"tile_ow\":[14,1,8]}"
MN_PICK64="{$T,\"parallel\":\"k_oh\",\"order\":[0,2,3,1,4],\"tile_k\":[1,2,16],\"tile_oh\":[112,1],\"tile_ow\":[16,1,7]}"
VG_SEED="{$T,\"parallel\":\"oh\",\"order\":[0,2,3,1,4],\"tile_k\":[2,2,16],\"tile_oh\":[224,1],\"tile_ow\":[32,1,7]}"
VG_1x8="{$T,\"parallel\":\"oh\",\"order\":[0,2,3,4,1],\"tile_k\":[1,4,16],\"tile_oh\":[224,1],\"tile_ow\":[28,1,8]}"
RS_SEED="{$T,\"parallel\":\"oh\",\"order\":[0,2,3,1,4],\"tile_k\":[2,2,16],\"tile_oh\":[112,1],\"tile_ow\":[16,1,7]}"
RS_1x8="{$T,\"parallel\":\"oh\",\"order\":[0,2,3,4,1],\"tile_k\":[1,4,16],\"tile_oh\":[112,1],\"tile_ow\":[14,1,8]}"
one() {  # label binary op config; the runner pins its own threads
  local g
  g=$(env -u OMP_PROC_BIND -u OMP_NUM_THREADS "$2" --threads 2 --op "$3" --config "$4" 2>&1 |
      grep '^| conv2d' | awk -F'|' '{print $5, $8}')
  echo "$(date +%T) $1 $g"
}
peak() { env -u OMP_PROC_BIND "$NEW" --peak-only --threads 2 2>&1 | grep -i peak | sed "s/^/$(date +%T) /"; }
peak
for round in $(seq 1 "$ROUNDS"); do
  for layer in MN VG RS; do
    op=${!layer}
    for variant in SEED 1x8 PICK64; do
      var=${layer}_$variant
      [ -n "${!var:-}" ] || continue
      one "round$round $layer old-$variant" "$OLD" "$op" "${!var}"
      one "round$round $layer new-$variant" "$NEW" "$op" "${!var}"
    done
  done
  env -u OMP_PROC_BIND "$BASE" --threads 2 --op "$MN_B" --op "$VG_B" --op "$RS_B" \
    --json "$OUT/onednn_round$round.json" > "$OUT/onednn_round$round.txt" 2>&1
  echo "$(date +%T) round$round oneDNN done"
done
peak
