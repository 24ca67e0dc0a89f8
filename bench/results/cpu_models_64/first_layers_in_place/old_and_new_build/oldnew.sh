#!/bin/bash
# Each pick of a picks file measured by the old build's and this build's bench_cpu_templates,
# alternating which goes first, ROUNDS rounds, 2 threads.
PICKS=$1; ROUNDS=${ROUNDS:-2}
NEW=/work/main/build/ci/bench/bench_cpu_templates; OLD=/tmp/old_bench/bench_cpu_templates
$NEW --peak-only --threads 2 2>&1 | grep -i peak | sed "s/^/$(date +%T) /"
for round in $(seq 1 $ROUNDS); do
  i=0
  while IFS=$'\t' read -r op cfg; do
    i=$((i+1))
    if (( (round + i) % 2 )); then order="OLD NEW"; else order="NEW OLD"; fi
    for which in $order; do
      bin=${!which}
      g=$($bin --threads 2 --op "$op" --config "$cfg" 2>&1 | grep '^| ' | grep -v '^| operator\|^|---\|best:' | awk -F'|' '{print $5, $8}')
      echo "$(date +%T) round$round task$i $which $g"
    done
  done < "$PICKS"
done
$NEW --peak-only --threads 2 2>&1 | grep -i peak | sed "s/^/$(date +%T) /"
