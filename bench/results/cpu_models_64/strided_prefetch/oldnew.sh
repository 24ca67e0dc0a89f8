#!/bin/bash
# The build before (OLD: ecb70ef) and this one (NEW) alternating on the rows of TSV (label TAB
# operator TAB configuration), ROUNDS rounds, the runner's protocol on 2 threads.
# Usage: OLD=… NEW=… [ROUNDS=5] oldnew.sh TSV > log  (log: oldnew_changed.log, on changed.tsv)
TSV=${1:?}; ROUNDS=${ROUNDS:-5}; OLD=${OLD:?}; NEW=${NEW:?}
run() { env -u OMP_PROC_BIND -u OMP_NUM_THREADS "$@"; }
run "$NEW" --peak-only --threads 2 2>&1 | grep -i peak | sed "s/^/$(date +%T) /"
for r in $(seq 1 $ROUNDS); do
  while IFS=$'\t' read -r label op cfg; do
    for v in old new; do
      if [ $v = old ]; then b=$OLD; else b=$NEW; fi
      g=$(run "$b" --threads 2 --op "$op" --config "$cfg" 2>&1 | grep '^| conv2d' | awk -F'|' '{print $5}')
      echo "r$r $label $v $g"
    done
  done < $TSV
done
run "$NEW" --peak-only --threads 2 2>&1 | grep -i peak | sed "s/^/$(date +%T) /"
