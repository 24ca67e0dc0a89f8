#!/bin/bash
# The README's first command (set up, tune ResNet-18, compile and run it) in a fresh clone of this
# repository's HEAD, every output line stamped with the time; the log goes to standard output.
#   bench/readme_main_job.sh [CLONE_DIR] > log
set -o pipefail
repo=$(git rev-parse --show-toplevel) || exit 1
dir=${1:-/tmp/glimpse-readme}
rm -rf "$dir" && git clone -q "$repo" "$dir" && cd "$dir" || exit 1
git log --oneline -1
command=$(grep -m1 '^scripts/build.sh && ' README.md)
echo "command: $command"
start=$(date +%s)
bash -c "$command" 2>&1 | while IFS= read -r line; do echo "$(date -u +%T) $line"; done
echo "rc=$? elapsed=$(( $(date +%s) - start ))"
