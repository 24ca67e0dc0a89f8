#!/bin/bash
# A record, not rerunnable as is: it ran against a working build before dacd56a with a temporary switch
# (GLIMPSE_PF_BLOCKED, not in the repository) that turned the blocked-input next-row prefetches on,
# in two forms logged in tried_every_tile_all.log (every tile prefetching all of the next row) and
# tried_spread_and_first_pass.log (shared out among one-row tiles; the whole next row once by the
# first k1o's tiles where a tile spans several rows). ROUNDS rounds, off and on alternating.
# Usage: ab.sh stride2.tsv
TSV=$1; ROUNDS=${ROUNDS:-4}
B=/work/main/build/ci/bench/bench_cpu_templates
run() { env -u OMP_PROC_BIND -u OMP_NUM_THREADS "$@"; }
run $B --peak-only --threads 2 2>&1 | grep -i peak
for r in $(seq 1 $ROUNDS); do
  while IFS=$'\t' read -r label op cfg; do
    for v in off on; do
      if [ $v = on ]; then e="GLIMPSE_PF_BLOCKED=1"; else e="X=1"; fi
      g=$(run env $e $B --threads 2 --op "$op" --config "$cfg" 2>&1 | grep '^| conv2d' | awk -F'|' '{print $5}')
      echo "r$r $label $v $g"
    done
  done < $TSV
done
run $B --peak-only --threads 2 2>&1 | grep -i peak
