#!/usr/bin/env bash
# Tuning throughput with and without overlapping builds, on the README's main job (every distinct
# operator of ResNet-18 on this CPU, xgb, 600 measurements). Three runs, one after the other, on an
# otherwise idle machine:
#   all-cpus   the default: kernels timed on every CPU, builds wait for measurements
#   one-less   kernels timed on the CPUs --overlap-builds leaves them, builds still wait
#   overlap    --overlap-builds: the compiler on CPUs of its own builds the next wave meanwhile
# Usage: bench/overlap/run.sh [GLIMPSE_BINARY] [OUT_DIR]; then bench/overlap/summarize.py OUT_DIR.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
glimpse="${1:-$here/../../build/default/glimpse}"
out="${2:-$here/runs}"
mkdir -p "$out"
cpus=$(nproc)
measure=$(( cpus - (cpus / 4 > 1 ? cpus / 4 : 1) ))
job=(tune --target cpu --model resnet18 --tuner xgb --global-budget 600 --no-db --json
     --progress log)
run() {
  local name="$1"; shift
  echo "== $name: $*" >&2
  "$glimpse" "${job[@]}" "$@" >"$out/$name.json" 2>"$out/$name.log"
}
run all-cpus
run one-less --threads "$measure"
run overlap --overlap-builds
lscpu | grep -E "Model name|^CPU\(s\)" >"$out/machine.txt"
echo "results in $out" >&2
