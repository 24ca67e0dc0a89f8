#!/bin/bash
# A model's whole graph (torchvision's export, activations blocked) with the @64 picks and with
# run.sh's @256 picks, each compiled by the same build and run alternating beside ONNX Runtime,
# ROUNDS rounds. Both databases hold the plain seeded @64 run (for the dense classifier) beside the
# blocked records: @64 the peeling build's run (../peel/<model>_retuned, as
# ../../../model_compile/blocked_zen4.sh assembles it), @256 run.sh's continuation of it.
# OUT: run.sh's directory.
#   BIN=/path/to/bin OUT=/path/to/dir [MODEL=resnet18|resnet50] [ROUNDS="1 2"] ./whole.sh
set -e
cd "$(git rev-parse --show-toplevel)"
model=${MODEL:-resnet18}
r=bench/results/cpu_models_64
declare -A plain=(
  [resnet18]="$r/blocked/resnet18/resnet18_tseeds4.jsonl.gz"
  [resnet50]="$r/template_seeds/resnet50_tseeds4.jsonl.gz"
)
declare -A blocked=(
  [64]="$r/blocked/peel/${model}_retuned/peeled.jsonl.gz"
  [256]="$OUT/at256.jsonl.gz"
)
for b in 64 256; do
  rm -f "$OUT/whole$b.db"
  for part in "${plain[$model]}" "${blocked[$b]}"; do
    zcat "$part" > "$OUT/import.jsonl"
    "$BIN/glimpse" db import --db "$OUT/whole$b.db" "$OUT/import.jsonl" > /dev/null
  done
  "$BIN/glimpse" compile "bench/onnx/models/$model.onnx" --db "$OUT/whole$b.db" --layout blocked \
    -o "$OUT/lib$b"
done
rm -f "$OUT/import.jsonl"
for round in ${ROUNDS:-1 2}; do
  for b in 64 256; do
    echo "round $round @$b"
    "$BIN/glimpse" run "$OUT/lib$b" --threads 1,2 --python .venv/bin/python \
      --json "$OUT/whole$b-r$round.json" | sed -n 2,5p
  done
done
