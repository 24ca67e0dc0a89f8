#!/bin/bash
# ResNet-50's 3x3 stride-2 layer at 56x56, plain and blocked: each run's best, the plain best
# moved to the blocked operator, the template seed (../../../cpu_models_64.md, "A strided 3x3
# layer blocked"). Two passes.   BIN=build/ci/bench ./m1.sh
B=${BIN:?the directory with bench_cpu_templates}/bench_cpu_templates
P='conv2d:N=1,C=128,H=56,W=56,K=128,R=3,S=3,stride=2,pad=1,bias=1,relu=1'
Q="$P,in_block=16,out_block=16"
for pass in 1 2; do
$B --threads 2 \
 --op "$P" --config '{"layout":"NCHWc","order":[4,0,3,2,1],"padding":"copy","parallel":"k","tile_c":[4,32],"tile_k":[8,1,16],"tile_oh":[2,14],"tile_ow":[1,1,28],"unroll":1,"vectorize":1}' \
 --op "$Q" --config '{"layout":"NCHWc","order":[2,4,1,0,3],"padding":"guard","parallel":"oh","tile_c":[8,16],"tile_k":[8,1,16],"tile_oh":[2,14],"tile_ow":[1,2,14],"unroll":1,"vectorize":1}' \
 --op "$Q" --config '{"layout":"NCHWc","order":[4,0,3,2,1],"padding":"copy","parallel":"k","tile_c":[8,16],"tile_k":[8,1,16],"tile_oh":[2,14],"tile_ow":[1,1,28],"unroll":1,"vectorize":1}' \
 --op "$Q" --config '{"layout":"NCHWc","order":[0,2,3,1,4],"padding":"copy","parallel":"k","tile_c":[8,16],"tile_k":[8,1,16],"tile_oh":[1,28],"tile_ow":[1,1,28],"unroll":1,"vectorize":1}' \
 --op "$P" --config '{"layout":"NCHWc","order":[4,0,3,2,1],"padding":"copy","parallel":"k","tile_c":[8,16],"tile_k":[8,1,16],"tile_oh":[2,14],"tile_ow":[1,1,28],"unroll":1,"vectorize":1}' 2>&1 | grep -v "^peak"
done
