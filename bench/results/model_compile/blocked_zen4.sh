#!/bin/bash
# How the <model>-blocked-zen4-r1..3 directories were made (model_compile.md, "torchvision's
# exports on Zen 4, activations blocked"): three rounds of bench/onnx/model_bench.sh on the three
# torchvision exports, compiled with activations kept blocked (LAYOUT=blocked) from databases
# assembled out of committed records:
#   resnet18, resnet50: the plain seeded @64 run (its dense classifier) + the blocked run tuned
#     again by the peeling code (cpu_models_64/blocked/peel/<model>_retuned/peeled.jsonl.gz);
#   mobilenet_v2: the plain seeded @64 run + the blocked @64 run + its --recheck 3 records.
#   BIN=/path/to/bin OUT=/dir/for/databases [ROUNDS="1 2 3"] ./blocked_zen4.sh
# (a second sitting: ROUNDS="4 5 6", results in <model>-blocked-zen4-r4..6)
set -e
cd "$(git rev-parse --show-toplevel)"
r=bench/results/cpu_models_64
declare -A parts=(
  [resnet18]="$r/blocked/resnet18/resnet18_tseeds4.jsonl.gz $r/blocked/peel/resnet18_retuned/peeled.jsonl.gz"
  [resnet50]="$r/template_seeds/resnet50_tseeds4.jsonl.gz $r/blocked/peel/resnet50_retuned/peeled.jsonl.gz"
  [mobilenet_v2]="$r/template_seeds/mobilenet_v2_tseeds4.jsonl.gz $r/blocked/mobilenet_v2_blocked.jsonl.gz $r/blocked/recheck/mobilenet_v2/recheck_records.jsonl.gz"
)
mkdir -p "$OUT"
for m in resnet18 resnet50 mobilenet_v2; do
  rm -f "$OUT/$m.db"
  for part in ${parts[$m]}; do
    gunzip -c "$part" > "$OUT/import.jsonl"
    "$BIN/glimpse" db import --db "$OUT/$m.db" "$OUT/import.jsonl" > /dev/null
  done
done
rm -f "$OUT/import.jsonl"
for round in ${ROUNDS:-1 2 3}; do
  for m in resnet18 resnet50 mobilenet_v2; do
    echo "$(date -u +%T) round $round $m"
    GLIMPSE=$BIN/glimpse DB=$OUT/$m.db TAG=blocked-zen4-r$round LAYOUT=blocked \
      bench/onnx/model_bench.sh "$m" | grep -A3 "^threads"
  done
done
