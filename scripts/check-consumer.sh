#!/usr/bin/env bash
# Installs a built glimpse into a fresh prefix, builds tests/consumer against it with
# find_package(glimpse), and runs it (it tunes one operator on this CPU through the installed
# libraries and the installed worker).
# Usage: scripts/check-consumer.sh BUILD_DIR [WORK_DIR]
set -euo pipefail
build_dir="$(cd "$1" && pwd)"
source_dir="$(cd "$(dirname "$0")/.." && pwd)"
work="${2:-$(mktemp -d)}"
rm -rf "$work/prefix" "$work/consumer"
mkdir -p "$work"
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
cmake -S "$source_dir/tests/consumer" -B "$work/consumer" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix"
cmake --build "$work/consumer"
# The library was configured for its default prefix: name the installed worker.
GLIMPSE_CPU_WORKER="$work/prefix/libexec/glimpse/glimpse_cpu_worker" \
  "$work/consumer/tune_one_operator"
# The installed command finds the installed data (the GPU table) with no source tree named.
test -f "$work/prefix/share/glimpse/data/hardware/gpus.json"
env -u GLIMPSE_DATA_DIR "$work/prefix/bin/glimpse" hw show "NVIDIA A100-PCIE-40GB" > /dev/null
