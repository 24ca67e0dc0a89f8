#!/bin/bash
# Each row of a TSV (label TAB operator TAB configuration) timed by bench_cpu_templates, ROUNDS rounds,
# 2 threads, the runner's protocol; EXTRA=--warm-activations times with the input back in the caches.
# Usage: B=build/ci/bench/bench_cpu_templates [ROUNDS=3] [EXTRA=...] time_rows.sh variants.tsv > variants.log
TSV=$1; ROUNDS=${ROUNDS:-3}; B=${B:?bench_cpu_templates}; EXTRA=${EXTRA:-}
run() { env -u OMP_PROC_BIND -u OMP_NUM_THREADS "$@"; }
run $B --peak-only --threads 2 2>&1 | grep -i peak
for r in $(seq 1 $ROUNDS); do
  while IFS=$'\t' read -r label op cfg; do
    g=$(run $B --threads 2 $EXTRA --op "$op" --config "$cfg" 2>&1 | grep '^| conv2d' | awk -F'|' '{print $5, $8}')
    echo "$(date +%T) r$r $label $g"
  done < $TSV
done
run $B --peak-only --threads 2 2>&1 | grep -i peak
