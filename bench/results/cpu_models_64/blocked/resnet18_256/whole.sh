#!/bin/bash
# A model's whole graph (torchvision's export, activations blocked) with the picks of several
# budgets, each compiled by the same build and run alternating beside ONNX Runtime, ROUNDS rounds,
# and (TORCH=1) PyTorch eager right after each round at the same thread counts. A ResNet's database
# holds the plain seeded @64 run (for the dense classifier) beside the blocked records of one
# budget: @64 the model's own @64 run (a ResNet's: the peeling build's, ../peel/<model>_retuned, as
# ../../../model_compile/blocked_zen4.sh assembles it; MobileNet-v2's: ../warm/run.sh's flushed
# "retuned" run), any other budget B the record export $OUT/atB.jsonl.gz (run.sh's @256,
# continue.sh's @1000) or, for any budget, the file named by AT_B.
# OUT: where the libraries and the results go.
#   BIN=/path/to/bin OUT=/path/to/dir [MODEL=resnet18|resnet50|mobilenet_v2] [BUDGETS="64 256"]
#     [AT_64=records.jsonl.gz] [AT_1000=records.jsonl.gz] [ROUNDS="1 2"] [TORCH=1] ./whole.sh
set -e
cd "$(git rev-parse --show-toplevel)"
model=${MODEL:-resnet18}
budgets=${BUDGETS:-64 256}
r=bench/results/cpu_models_64
declare -A plain=(
  [resnet18]="$r/blocked/resnet18/resnet18_tseeds4.jsonl.gz"
  [resnet50]="$r/template_seeds/resnet50_tseeds4.jsonl.gz"
  # MobileNet-v2's records come from a whole-model tuning (../warm/run.sh's retuned run and its
  # continuation), which tuned the classifier with the rest: nothing to add.
  [mobilenet_v2]=""
)
declare -A at64=(
  [resnet18]="$r/blocked/peel/resnet18_retuned/peeled.jsonl.gz"
  [resnet50]="$r/blocked/peel/resnet50_retuned/peeled.jsonl.gz"
  [mobilenet_v2]="$r/blocked/warm/retuned.jsonl.gz"
)
if [ -z "${at64[$model]+set}" ]; then
  echo "whole.sh: MODEL=$model: one of ${!at64[*]}" >&2
  exit 2
fi
records_of() {
  local named="AT_$1"
  if [ -n "${!named}" ]; then echo "${!named}"
  elif [ "$1" = 64 ]; then echo "${at64[$model]}"
  else echo "$OUT/at$1.jsonl.gz"; fi
}
for b in $budgets; do
  rm -f "$OUT/whole$b.db"
  for part in "${plain[$model]}" "$(records_of "$b")"; do
    if [ -z "$part" ]; then continue; fi
    zcat "$part" > "$OUT/import.jsonl"
    "$BIN/glimpse" db import --db "$OUT/whole$b.db" "$OUT/import.jsonl" > /dev/null
  done
  "$BIN/glimpse" compile "bench/onnx/models/$model.onnx" --db "$OUT/whole$b.db" --layout blocked \
    -o "$OUT/lib$b"
done
rm -f "$OUT/import.jsonl"
for round in ${ROUNDS:-1 2}; do
  for b in $budgets; do
    echo "round $round @$b"
    "$BIN/glimpse" run "$OUT/lib$b" --threads 1,2 --python .venv/bin/python \
      --json "$OUT/whole$b-r$round.json" | sed -n 2,5p
  done
  if [ -n "$TORCH" ]; then
    for t in 1 2; do
      .venv/bin/python bench/onnx/torch_time.py --model "$model" --threads "$t" \
        --json "$OUT/torch-${t}t-r$round.json" | tail -1
    done
  fi
done
