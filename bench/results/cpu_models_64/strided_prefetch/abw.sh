#!/bin/bash
# A record, not rerunnable as is: it ran against a build with a temporary switch (GLIMPSE_PF_W=D,
# not in the repository) that prefetched the packed weight D lines ahead in the innermost
# reduction loop where the reduction runs c0 r s c1 (the weight layout's order); 0 = off.
# Log: tried_weight_stream_ahead.log.
# Usage: VALS="0 32 64 128" abw.sh weight_stream.tsv
TSV=$1; ROUNDS=${ROUNDS:-4}; VALS=${VALS:-"0 64"}
B=/work/main/build/ci/bench/bench_cpu_templates
run() { env -u OMP_PROC_BIND -u OMP_NUM_THREADS "$@"; }
run $B --peak-only --threads 2 2>&1 | grep -i peak
for r in $(seq 1 $ROUNDS); do
  while IFS=$'\t' read -r label op cfg; do
    for v in $VALS; do
      if [ $v = 0 ]; then e="X=1"; else e="GLIMPSE_PF_W=$v"; fi
      g=$(run env $e $B --threads 2 --op "$op" --config "$cfg" 2>&1 | grep '^| conv2d' | awk -F'|' '{print $5}')
      echo "r$r $label w$v $g"
    done
  done < $TSV
done
run $B --peak-only --threads 2 2>&1 | grep -i peak
