#!/bin/bash
# MobileNet-v2 (torchvision's export, activations blocked) tuned with the warm-activations
# protocol (glimpse tune --warm-activations: each candidate timed with its activation inputs read
# back into the caches after the flush) beside the flushed protocol's library of
# ../../../model_compile/blocked_zen4.sh, both compiled by the same build and run alternating beside
# ONNX Runtime: does the Σ of the records (the compile's estimate) come closer to the measured
# model, and is the model faster? Three libraries:
#   warm: xgb-rounds, 64 measurements a task, seed 0, template seeds, --recheck 3 (the flushed
#     run's settings: ../run.sh, then ../recheck), every task of the file tuned warm;
#   retuned: the same command by the same build without --warm-activations (the flushed protocol),
#     so that the protocol is the only difference from warm;
#   flushed: the committed records blocked_zen4.sh assembles (plain seeded @64 for the classifier,
#     the blocked @64 run and its --recheck 3 records; older builds).
#   BIN=/path/to/bin OUT=/path/to/dir [ROUNDS="1 2"] [TUNE="warm retuned"] [LIBS="flushed warm retuned"] ./run.sh
set -e
cd "$(git rev-parse --show-toplevel)"
r=bench/results/cpu_models_64
model=bench/onnx/models/mobilenet_v2.onnx
mkdir -p "$OUT"
for run in ${TUNE-warm retuned}; do
  flag=$(if [ "$run" = warm ]; then echo --warm-activations; fi)
  echo "$(date -u +%FT%TZ) tuning $run" >> "$OUT/sittings.log"
  GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu --model "$model" \
    --layout blocked $flag --tuner xgb-rounds --budget 64 --seed 0 \
    --template-seeds 4 --recheck 3 --db "$OUT/$run.db" --progress log --json \
    > "$OUT/$run.summary.json" 2> "$OUT/$run.log"
  echo "$(date -u +%FT%TZ) tuning ended" >> "$OUT/sittings.log"
  "$BIN/glimpse" db export --db "$OUT/$run.db" | gzip -9 > "$OUT/$run.jsonl.gz"
done
rm -f "$OUT/flushed.db"
for part in "$r/template_seeds/mobilenet_v2_tseeds4.jsonl.gz" \
  "$r/blocked/mobilenet_v2_blocked.jsonl.gz" \
  "$r/blocked/recheck/mobilenet_v2/recheck_records.jsonl.gz"; do
  zcat "$part" > "$OUT/import.jsonl"
  "$BIN/glimpse" db import --db "$OUT/flushed.db" "$OUT/import.jsonl" > /dev/null
done
rm -f "$OUT/import.jsonl"
libs=${LIBS:-flushed warm retuned}
for lib in $libs; do
  flag=$(if [ "$lib" = warm ]; then echo --warm-activations; fi)
  "$BIN/glimpse" compile "$model" --db "$OUT/$lib.db" --layout blocked $flag -o "$OUT/lib$lib" \
    > "$OUT/compile-$lib.txt" 2>&1
  echo "$lib: $(grep -h "estimated" "$OUT/compile-$lib.txt")"
done
for round in ${ROUNDS:-1 2}; do
  for lib in $libs; do
    echo "$(date -u +%T) round $round $lib"
    GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" run "$OUT/lib$lib" --threads 1,2 \
      --python .venv/bin/python --json "$OUT/$lib-r$round.json" --profile > "$OUT/$lib-r$round.txt"
    sed -n 2,5p "$OUT/$lib-r$round.txt"
  done
done
