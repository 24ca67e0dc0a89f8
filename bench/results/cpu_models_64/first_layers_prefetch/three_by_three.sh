#!/bin/bash
# Every 3×3 convolution of the four models in one sitting: each model's @1000 pick (blocked/
# *_1000), MobileNet-v2's first layer also with this build's one-block seed and 64-measurement pick,
# VGG-16's with the in-place seed. ROUNDS rounds, each configuration once per round, 2 threads, the
# runner's protocol. Usage: BENCH=bench_cpu_templates [ROUNDS=3] three_by_three.sh TSV > three_by_three_sittingN.log
TSV=${1:?label TAB operator TAB configuration}; ROUNDS=${ROUNDS:-3}; BENCH=${BENCH:?}
run() { env -u OMP_PROC_BIND -u OMP_NUM_THREADS "$@"; }  # the runner pins its own threads
run "$BENCH" --peak-only --threads 2 2>&1 | grep -i peak | sed "s/^/$(date +%T) /"
for round in $(seq 1 "$ROUNDS"); do
  i=0
  while IFS=$'\t' read -r label op cfg; do
    i=$((i + 1))
    g=$(run "$BENCH" --threads 2 --op "$op" --config "$cfg" 2>&1 | grep '^| conv2d' |
        awk -F'|' '{print $5, $8}')
    echo "$(date +%T) round$round task$i $label $g"
  done < "$TSV"
done
run "$BENCH" --peak-only --threads 2 2>&1 | grep -i peak | sed "s/^/$(date +%T) /"
