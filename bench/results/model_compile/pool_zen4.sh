#!/bin/bash
# The pooling rewrite of glimpse_model_ops.h (window bounds clipped once per output, channel
# blocks pooled as one vector per tap) timed on whole models: ResNet-18 and ResNet-50 from
# torchvision's exports, activations blocked, compiled from the databases of blocked_zen4.sh by
# the build before the change (OLD) and after it (NEW) — the artifacts differ only in that header
# — then run alternating, ROUNDS rounds, each `glimpse run --profile` at 1 and 2 threads beside
# ONNX Runtime. Results under $OUT/<model>-{old,new}-r<round>.{json,txt}.
#   OLD=/bin/before NEW=/bin/after OUT=/dir [ROUNDS="1 2 3"] ./pool_zen4.sh
set -e
cd "$(git rev-parse --show-toplevel)"
mkdir -p "$OUT"
# The databases only (ROUNDS=" ": no timing rounds there).
BIN=$NEW OUT=$OUT ROUNDS=" " bench/results/model_compile/blocked_zen4.sh
for m in resnet18 resnet50; do
  for build in old new; do
    bin=$OLD; [[ $build == new ]] && bin=$NEW
    "$bin/glimpse" compile "bench/onnx/models/$m.onnx" --db "$OUT/$m.db" --layout blocked \
      -o "$OUT/$m-$build-lib" > "$OUT/$m-$build-compile.txt" 2>&1
  done
done
for round in ${ROUNDS:-1 2 3}; do
  for m in resnet18 resnet50; do
    for build in old new; do
      echo "$(date -u +%T) round $round $m $build"
      "$NEW/glimpse" run "$OUT/$m-$build-lib" --threads 1,2 --profile --python .venv/bin/python \
        --json "$OUT/$m-$build-r$round.json" > "$OUT/$m-$build-r$round.txt" 2> "$OUT/$m-$build-r$round.log"
      grep -A3 "^threads" "$OUT/$m-$build-r$round.txt"
    done
  done
done
