#!/usr/bin/env bash
# The networks relative to the roofline's estimate beside the plain ones (perf_eval.md, "The
# networks relative to the roofline"): held-out models with all six corpus files (seeds 0–2 for
# GraphSAGE, seed 0 for the LSTM), held-out operators with the corpus alone (seeds 0–2). Two
# evaluations at a time, each on one thread. Usage, from the repository:
#   GLIMPSE=build/ci/glimpse bench/results/perf_eval_wide/networks_relative.sh
set -euo pipefail
G=${GLIMPSE:-build/ci/glimpse}
OUT=$(dirname "$0")
E=data/corpus/cpu-amd-epyc
ALL=$E.jsonl.gz,$E-mobilenet-v1-depthwise.jsonl.gz,$E-mobilenet-v1-pointwise.jsonl.gz,$E-efficientnet-b0-depthwise.jsonl.gz,$E-efficientnet-b0-pointwise.jsonl.gz,$E-classifier-heads.jsonl.gz
P=data/hardware/cpu_machine_profile_amd_epyc.json
evaluate() {  # NAME CORPUS SPLIT SEED PREDICTOR
  "$G" perf-model evaluate --corpus "$2" --profile "$P" --split "$3" --seed "$4" --predictors "$5" \
    --json "$OUT/$1.json" > "$OUT/$1.txt" 2> "$OUT/$1.log"
}
evaluate models-all-graphsage-efficiency "$ALL" models 0 graphsage-efficiency &
evaluate models-all-lstm-efficiency "$ALL" models 0 lstm-efficiency &
wait
for seed in 0 1 2; do
  evaluate "operators-s$seed-graphsage" "$E.jsonl.gz" operators "$seed" graphsage &
  evaluate "operators-s$seed-graphsage-efficiency" "$E.jsonl.gz" operators "$seed" graphsage-efficiency &
  wait
done
for seed in 1 2; do
  evaluate "models-all-graphsage-s$seed" "$ALL" models "$seed" graphsage &
  evaluate "models-all-graphsage-efficiency-s$seed" "$ALL" models "$seed" graphsage-efficiency &
  wait
done
