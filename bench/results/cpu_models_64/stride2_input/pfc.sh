#!/bin/bash
# A record, not rerunnable as is: it ran against a generator with a temporary switch (GLIMPSE_PF_C=D, not
# in the repository) that prefetched, at the top of each input channel block c0, the kernel rows x the tile's
# input columns of block c0 + D (blocked input read in place). Log: pfc1.log. Usage: VALS="0 1" pfc.sh ab.tsv
TSV=$1; ROUNDS=${ROUNDS:-3}; VALS=${VALS:-"0 1"}; B=/work/main/build/ci/bench/bench_cpu_templates
run() { env -u OMP_PROC_BIND -u OMP_NUM_THREADS "$@"; }
run $B --peak-only --threads 2 2>&1 | grep -i peak
for r in $(seq 1 $ROUNDS); do
  while IFS=$'\t' read -r label op cfg; do
    for v in $VALS; do
      if [ $v = 0 ]; then e="X=1"; else e="GLIMPSE_PF_C=$v"; fi
      g=$(run env $e $B --threads 2 --op "$op" --config "$cfg" 2>&1 | grep '^| conv2d' | awk -F'|' '{print $5}')
      echo "$(date +%T) r$r $label c$v $g"
    done
  done < $TSV
done
run $B --peak-only --threads 2 2>&1 | grep -i peak
