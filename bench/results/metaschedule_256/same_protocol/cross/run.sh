#!/bin/bash
# The 28×28 1×1 stride-2 layer across this session's two MetaSchedule runs: the 23:07 run's pick
# (LIBRARY, its best.so) beside glimpse's @64 pick of ../resnet18_28x28_1x1 and glimpse's best of
# 1000 from ../../same_sitting/glimpse1000.jsonl.gz, under both protocols, 3 rounds alternating.
#   LIBRARY=<work dir>/best.so BIN=/path/to/bin ./run.sh > log.txt
set -e
cd "$(git rev-parse --show-toplevel)"
here=bench/results/metaschedule_256/same_protocol
OP="conv2d:N=1,C=128,H=28,W=28,K=256,R=1,S=1,stride=2,pad=0,bias=1"
P64=$(cat $here/resnet18_28x28_1x1/glimpse_pick.json)
P1000='{"layout":"NCHW_plane","order":[2,0,3,4,1],"parallel":"k_oh","tile_c":[1,128],"tile_k":[2,16,8],"tile_oh":[14,1],"tile_ow":[7,1,2],"unroll":0,"vectorize":0}'
for r in 1 2 3; do
  build/tvm-venv/bin/python bench/peers/metaschedule_retime.py --library "$LIBRARY" --op "$OP" \
    --rounds 1 > "$here/cross/ms2307_r$r.txt"
  for p in P64 P1000; do
    for w in "" --warm-activations; do
      echo "r$r $p ${w:-cold} $("$BIN/bench_cpu_templates" --threads 2 $w --op "$OP" \
        --config "${!p}" | grep '^| conv' | cut -d'|' -f5,8)"
    done
  done
  tail -2 "$here/cross/ms2307_r$r.txt"
done
