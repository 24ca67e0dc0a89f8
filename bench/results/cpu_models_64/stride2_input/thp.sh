#!/bin/bash
# A record, not rerunnable as is: it ran against a worker with a temporary switch (GLIMPSE_THP=1, not
# in the repository) that allocated the prepared (packed) weight 2 MiB-aligned with madvise(MADV_HUGEPAGE).
# Log: thp.log. Usage: ROUNDS=3 thp.sh v2.tsv
TSV=$1; ROUNDS=${ROUNDS:-3}; B=/work/main/build/ci/bench/bench_cpu_templates
run() { env -u OMP_PROC_BIND -u OMP_NUM_THREADS "$@"; }
run $B --peak-only --threads 2 2>&1 | grep -i peak
for r in $(seq 1 $ROUNDS); do
  while IFS=$'\t' read -r label op cfg; do
    for v in off on; do
      if [ $v = off ]; then e="X=1"; else e="GLIMPSE_THP=1"; fi
      g=$(run env $e $B --threads 2 --op "$op" --config "$cfg" 2>&1 | grep '^| conv2d' | awk -F'|' '{print $5}')
      echo "$(date +%T) r$r $label $v $g"
    done
  done < $TSV
done
run $B --peak-only --threads 2 2>&1 | grep -i peak
