#!/bin/bash
# ResNet-18's whole model (torchvision's export, activations blocked) with the @64 picks
# (../../../model_compile/blocked_zen4.sh's database) and with run.sh's @256 picks (its blocked
# records beside the plain seeded run's, for the classifier), each compiled by the same build and
# run alternating beside ONNX Runtime, ROUNDS rounds. OUT: run.sh's directory.
#   BIN=/path/to/bin OUT=/path/to/dir AT64_DB=resnet18.db [ROUNDS="1 2"] ./whole.sh
set -e
cd "$(git rev-parse --show-toplevel)"
rm -f "$OUT/whole.db"
zcat bench/results/cpu_models_64/blocked/resnet18/resnet18_tseeds4.jsonl.gz > "$OUT/plain.jsonl"
"$BIN/glimpse" db import --db "$OUT/whole.db" "$OUT/plain.jsonl" > /dev/null
zcat "$OUT/at256.jsonl.gz" > "$OUT/at256.jsonl"
"$BIN/glimpse" db import --db "$OUT/whole.db" "$OUT/at256.jsonl" > /dev/null
"$BIN/glimpse" compile bench/onnx/models/resnet18.onnx --db "$OUT/whole.db" --layout blocked \
  -o "$OUT/lib256"
"$BIN/glimpse" compile bench/onnx/models/resnet18.onnx --db "$AT64_DB" --layout blocked \
  -o "$OUT/lib64"
for r in ${ROUNDS:-1 2}; do
  for b in 64 256; do
    echo "round $r @$b"
    "$BIN/glimpse" run "$OUT/lib$b" --threads 1,2 --python .venv/bin/python \
      --json "$OUT/whole$b-r$r.json" | sed -n 2,5p
  done
done
