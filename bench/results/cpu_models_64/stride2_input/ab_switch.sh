#!/bin/bash
# A record, not rerunnable as is: each run alternated a build's temporary switch (an environment
# variable, not in the repository) off and on, per configuration and round, 2 threads, the
# runner's protocol. The switches:
#   GLIMPSE_THP=1   the worker allocated the prepared (packed) weight 2 MiB-aligned with
#                   madvise(MADV_HUGEPAGE)                     — VALS="0 1" on v2.tsv, thp.log
#   GLIMPSE_PF_C=D  the generator prefetched, at the top of each input channel block c0, the
#                   kernel rows x the tile's input columns of block c0 + D (blocked input read in
#                   place)                                      — VALS="0 1" on ab.tsv, pfc1.log
#   GLIMPSE_PF_R=D  the generator prefetched, at the top of each kernel row r, the tile's input
#                   columns of row r + D - 1 (1: the row itself, all its stride-2 columns at once;
#                   2: the next)                                — VALS="0 1 2" on abr.tsv, pfr1.log
# Usage: B=bench_cpu_templates SWITCH=GLIMPSE_PF_R VALS="0 1 2" [ROUNDS=4] ab_switch.sh abr.tsv
TSV=$1; ROUNDS=${ROUNDS:-3}; VALS=${VALS:-"0 1"}; B=${B:?bench_cpu_templates}; SWITCH=${SWITCH:?}
run() { env -u OMP_PROC_BIND -u OMP_NUM_THREADS "$@"; }
run $B --peak-only --threads 2 2>&1 | grep -i peak
for r in $(seq 1 $ROUNDS); do
  while IFS=$'\t' read -r label op cfg; do
    for v in $VALS; do
      if [ $v = 0 ]; then e="X=1"; else e="$SWITCH=$v"; fi
      g=$(run env $e $B --threads 2 --op "$op" --config "$cfg" 2>&1 | grep '^| conv2d' | awk -F'|' '{print $5}')
      echo "$(date +%T) r$r $label $v $g"
    done
  done < $TSV
done
run $B --peak-only --threads 2 2>&1 | grep -i peak
