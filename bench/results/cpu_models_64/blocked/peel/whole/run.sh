#!/bin/bash
# Whole models after the column-tile peel: ResNet-50 and ResNet-18 (activations blocked, fused
# epilogues) compiled from the zoo's exported ONNX file twice by the same build — with the picks of
# the runs before the peel (the blocked @64 run and its --recheck 3 records, ../../recheck) and
# with the picks of the run tuned again by the peeling code (../<model>_retuned/peeled.jsonl.gz)
# — then each library run, checked and timed by `glimpse run` beside ONNX Runtime on the same
# file, three rounds, the two libraries one after the other in every round. Both databases also
# hold the model's plain seeded @64 run (as the 12-03 sitting's merged database did,
# ../../ort/sitting.sh), whose records give the classifier (dense) its tuned kernel.
#   BIN=/path/to/bin OUT=/path/to/dir [ROUNDS=3] [MODELS="resnet50 resnet18"] ./run.sh
set -e
cd "$(git rev-parse --show-toplevel)"
blocked=bench/results/cpu_models_64/blocked
export GLIMPSE_PYTHON=${GLIMPSE_PYTHON:-$PWD/.venv/bin/python}
mkdir -p "$OUT"
models=${MODELS:-resnet50 resnet18}
for m in $models; do
  "$BIN/glimpse" model export "$m" -o "$OUT/$m.onnx" > /dev/null
  for which in before peeled; do
    rm -f "$OUT/${m}_$which.db"
    plain=$blocked/$m/${m}_tseeds4.jsonl.gz
    [ -f "$plain" ] || plain=bench/results/cpu_models_64/template_seeds/${m}_tseeds4.jsonl.gz
    if [ $which = before ]; then
      src=$blocked/$m/${m}_blocked.jsonl.gz
      [ -f "$src" ] || src=$blocked/${m}_blocked.jsonl.gz
      parts=("$plain" "$src" "$blocked/recheck/$m/recheck_records.jsonl.gz")
    else
      parts=("$plain" "$blocked/peel/${m}_retuned/peeled.jsonl.gz")
    fi
    for part in "${parts[@]}"; do
      gunzip -c "$part" > "$OUT/import.jsonl"
      "$BIN/glimpse" db import --db "$OUT/${m}_$which.db" "$OUT/import.jsonl" > /dev/null
    done
    "$BIN/glimpse" compile "$OUT/$m.onnx" --db "$OUT/${m}_$which.db" --layout blocked \
      -o "$OUT/${m}_$which" > "$OUT/${m}_${which}_compile.txt" 2>&1
  done
done
rm -f "$OUT/import.jsonl"
for round in $(seq "${ROUNDS:-3}"); do
  for m in $models; do
    for which in before peeled; do
      echo "$(date -u +%T) round $round $m $which"
      "$BIN/glimpse" run "$OUT/${m}_$which" --threads 2,1 --min-repeats 20 --min-time 1 \
        --json "$OUT/${m}_${which}_r$round.json" > "$OUT/${m}_${which}_r$round.txt" 2>&1 ||
        echo "FAILED $m $which $round"
      grep -A3 "^threads" "$OUT/${m}_${which}_r$round.txt" | tail -2
    done
  done
done
