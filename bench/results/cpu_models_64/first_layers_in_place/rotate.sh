#!/bin/bash
# Three first layers, rotating: old build @1000 pick, new build @1000 pick, new build's in-place
# seed, oneDNN blocked. ROUNDS rounds, 2 threads, the runner's protocol (flushed operands).
set -u
OUT=${OUT:-/work/exp/fl/rot}; ROUNDS=${ROUNDS:-3}
NEW=/work/main/build/ci/bench/bench_cpu_templates; OLD=/tmp/old_bench/bench_cpu_templates
BASE=/work/main/build/ci/bench/cpu_baselines
MN='conv2d:N=1,C=3,H=224,W=224,K=32,R=3,S=3,stride=2,pad=1,dilation=1,bias=1,relu=0,relu6=1,out_block=16'
VG='conv2d:N=1,C=3,H=224,W=224,K=64,R=3,S=3,stride=1,pad=1,dilation=1,bias=1,relu=1,out_block=16'
RS='conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3,dilation=1,bias=1,relu=1,out_block=16'
MN_B='conv2d:N=1,C=3,H=224,W=224,K=32,R=3,S=3,stride=2,pad=1,bias=1,relu=1'
VG_B='conv2d:N=1,C=3,H=224,W=224,K=64,R=3,S=3,pad=1,bias=1,relu=1'
RS_B='conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3,bias=1,relu=1'
MN_PICK='{"layout":"NCHWc","order":[3,4,0,2,1],"padding":"guard","parallel":"oh","tile_c":[1,3],"tile_k":[1,2,16],"tile_oh":[112,1],"tile_ow":[16,1,7],"unroll":1,"vectorize":1}'
VG_PICK='{"layout":"NCHWc","order":[3,4,0,2,1],"padding":"guard","parallel":"k_oh","tile_c":[3,1],"tile_k":[4,1,16],"tile_oh":[2,112],"tile_ow":[1,8,28],"unroll":1,"vectorize":1}'
RS_PICK='{"layout":"NCHWc","order":[1,4,3,0,2],"padding":"guard","parallel":"oh","tile_c":[1,3],"tile_k":[4,1,16],"tile_oh":[112,1],"tile_ow":[16,1,7],"unroll":1,"vectorize":1}'
MN_SEED='{"layout":"NCHWc","order":[0,2,3,1,4],"padding":"guard","parallel":"oh","tile_c":[3,1],"tile_k":[1,2,16],"tile_oh":[112,1],"tile_ow":[16,1,7],"unroll":1,"vectorize":1}'
VG_SEED='{"layout":"NCHWc","order":[0,2,3,1,4],"padding":"guard","parallel":"oh","tile_c":[3,1],"tile_k":[2,2,16],"tile_oh":[224,1],"tile_ow":[32,1,7],"unroll":1,"vectorize":1}'
RS_SEED='{"layout":"NCHWc","order":[0,2,3,1,4],"padding":"guard","parallel":"oh","tile_c":[3,1],"tile_k":[2,2,16],"tile_oh":[112,1],"tile_ow":[16,1,7],"unroll":1,"vectorize":1}'
one() {  # label binary op config
  local g
  g=$("$2" --threads 2 --op "$3" --config "$4" 2>&1 | grep '^| conv2d' | awk -F'|' '{print $5, $8}')
  echo "$(date +%T) $1 $g"
}
$NEW --peak-only --threads 2 2>&1 | grep -i peak | sed "s/^/$(date +%T) /"
for round in $(seq 1 $ROUNDS); do
  for layer in MN VG RS; do
    op=${!layer}; pick_var=${layer}_PICK; seed_var=${layer}_SEED
    one "round$round $layer old-build-pick" $OLD "$op" "${!pick_var}"
    one "round$round $layer new-build-pick" $NEW "$op" "${!pick_var}"
    one "round$round $layer new-build-seed" $NEW "$op" "${!seed_var}"
  done
  $BASE --threads 2 --op "${MN_B}" --op "${VG_B}" --op "${RS_B}" --json $OUT/onednn_round$round.json > $OUT/onednn_round$round.txt 2>&1
  echo "$(date +%T) round$round oneDNN done"
done
$NEW --peak-only --threads 2 2>&1 | grep -i peak | sed "s/^/$(date +%T) /"
