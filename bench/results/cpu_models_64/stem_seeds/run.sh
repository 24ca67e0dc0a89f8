#!/bin/bash
# How the tuning runs in this directory were made (2026-12-03, Zen 4 guest; see "Seeds for the
# 3-channel first layer" in ../../cpu_models_64.md). BIN: glimpse and glimpse_cpu_worker built at
# the commit that added the plain-layout seeds. VGG-16's first layer alone: the README's tuner
# (xgb-rounds, 64 measurements), tuner seeds 0 and 1, with the template seeds (4) and without (0),
# one run after the other with nothing else running.
#   BIN=/path/to/bin OUT=dir bench/results/cpu_models_64/stem_seeds/run.sh
set -e
out=${OUT:-.}
op='conv2d:N=1,C=3,H=224,W=224,K=64,R=3,S=3,pad=1,bias=1,relu=1'
for seed in ${TUNER_SEEDS:-0 1}; do
  for seeds in 4 0; do
    name=vgg16_stem_tseeds${seeds}_s${seed}
    GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu --op "$op" \
      --tuner xgb-rounds --budget 64 --seed "$seed" --template-seeds "$seeds" \
      --db "$out/$name.db" --progress log --json > "$out/$name.summary.json"
    "$BIN/glimpse" db export --db "$out/$name.db" | gzip -9 > "$out/$name.jsonl.gz"
  done
done
