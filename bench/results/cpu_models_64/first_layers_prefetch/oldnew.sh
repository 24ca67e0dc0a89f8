#!/bin/bash
# Each configuration of a picks file (operator TAB configuration) measured by the build before and
# this build's bench_cpu_templates, alternating which goes first, ROUNDS rounds, 2 threads.
# Usage: OLD=… NEW=… [ROUNDS=3] oldnew.sh PICKS
PICKS=${1:?picks file}; ROUNDS=${ROUNDS:-3}
NEW=${NEW:?bench_cpu_templates of this build}; OLD=${OLD:?bench_cpu_templates of the build before}
run() { env -u OMP_PROC_BIND -u OMP_NUM_THREADS "$@"; }  # the runner pins its own threads
run "$NEW" --peak-only --threads 2 2>&1 | grep -i peak | sed "s/^/$(date +%T) /"
for round in $(seq 1 "$ROUNDS"); do
  i=0
  while IFS=$'\t' read -r op cfg; do
    i=$((i + 1))
    if (( (round + i) % 2 )); then order="OLD NEW"; else order="NEW OLD"; fi
    for which in $order; do
      g=$(run "${!which}" --threads 2 --op "$op" --config "$cfg" 2>&1 | grep '^| ' |
          grep -v '^| operator\|^|---\|best:' | awk -F'|' '{print $5, $8}')
      echo "$(date +%T) round$round task$i $which $g"
    done
  done < "$PICKS"
done
run "$NEW" --peak-only --threads 2 2>&1 | grep -i peak | sed "s/^/$(date +%T) /"
