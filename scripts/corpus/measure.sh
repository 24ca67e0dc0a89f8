#!/usr/bin/env bash
# Measures the performance corpus (docs/perf-corpus.md) in sessions that may end at any moment
# on machines that do not outlive them: the database lives in build/corpus/, and its progress is
# kept in the repository as a JSON-lines snapshot (data/corpus/progress/<cpu>.db.jsonl.gz,
# `glimpse db export`, notes included) that the next run on a machine with the same CPU imports
# before it resumes.
#
# Usage: scripts/corpus/measure.sh [SECONDS]    (default 3600: stop after that long)
#        scripts/corpus/measure.sh --snapshot   (only write the snapshot of build/corpus's database)
#
# Stop it early with `kill <pid>` (SIGTERM; or Ctrl-C): glimpse commits every batch (a stop loses at
# most the batch in flight), and the snapshot is written on the way out. A machine that vanishes
# keeps only the last snapshot, so prefer several runs of half an hour, each committed. Run it on a quiet machine: the times are the corpus's labels.
# Settings: every zoo model, 240 uniform samples and 32 tuned measurements per operator, seed 0 —
# 20,000 successful measurements or more over all operators (docs/perf-corpus.md).
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
# One corpus per machine: the sessions that measure it do not always get the same kind of CPU,
# and the times of one are not the labels of another. The name is the CPU's, as the kernel
# reports it, and as glimpse names the device (glimpse/cpu_identity.h) a name without a model
# number gets the family and model: "AMD EPYC" of family 25 model 1 → cpu-amd-epyc-f25-m1.
# (cpu-amd-epyc and cpu-intel-xeon were measured before names carried them.)
cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2-)
if ! [[ $cpu =~ [0-9] ]]; then
  family=$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' \t')
  model=$(grep -m1 -E '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' \t')
  cpu="$cpu f${family} m${model}"
fi
slug=$(echo "$cpu" | tr '[:upper:]' '[:lower:]' | sed -e 's/([^)]*)//g' -e 's/[^a-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//')
name=cpu-${slug:-unknown}
db=build/corpus/$name.db
snapshot=data/corpus/progress/$name.db.jsonl.gz
glimpse=${GLIMPSE:-build/ci/glimpse}
budget=3600
only_snapshot=0
case "${1:-}" in
  --snapshot) only_snapshot=1 ;;
  "") ;;
  *)
    if ! [[ $1 =~ ^[0-9]+$ ]]; then
      echo "measure.sh: SECONDS must be a whole number (got '$1'); or --snapshot" >&2
      exit 2
    fi
    budget=$1 ;;
esac
if [[ ! -x $glimpse ]]; then
  echo "measure.sh: $glimpse is missing: build it (scripts/build.sh ci) or set GLIMPSE" >&2
  exit 2
fi
mkdir -p build/corpus "$(dirname "$snapshot")"

# Writes the database's records and notes to the snapshot, through a temporary file, so a killed
# export leaves the previous snapshot.
write_snapshot() {
  local tmp=$snapshot.tmp
  if "$glimpse" db export --db "$db" | gzip -9 > "$tmp"; then
    mv "$tmp" "$snapshot"
    echo "measure.sh: snapshot $snapshot ($(du -h "$snapshot" | cut -f1))"
  else
    rm -f "$tmp"
    echo "measure.sh: the snapshot failed; $snapshot is unchanged" >&2
    return 1
  fi
}

if [[ $only_snapshot == 1 ]]; then
  write_snapshot
  exit $?
fi

if [[ ! -f $db && -f $snapshot ]]; then
  echo "measure.sh: resuming from $snapshot"
  tmp=build/corpus/snapshot.jsonl
  gzip -dc "$snapshot" > "$tmp" && "$glimpse" db import --db "$db" "$tmp" || exit 1
  rm -f "$tmp"
fi

# glimpse stops by itself at the time budget; a signal ends it at once (committed batches stay).
# It runs in the background so that this script can write the snapshot after it, and a
# background command of a script ignores SIGINT: Ctrl-C or a SIGTERM to this script is passed on
# to it as SIGTERM. (A script started in the background ignores SIGINT itself: use SIGTERM.)
"$glimpse" corpus measure --db "$db" --per-operator 240 --tuned-best 32 --seed 0 \
  --time-budget "$budget" --progress log &
child=$!
trap 'kill -TERM $child 2>/dev/null' INT TERM
wait $child
status=$?
# wait returns early when a signal arrives: wait for glimpse itself to finish committing.
while kill -0 $child 2>/dev/null; do wait $child; status=$?; done
write_snapshot
exit $status
