#!/usr/bin/env bash
# Installs the dependencies, builds glimpse with warnings as errors, checks the format, runs
# every test, and (preset ci) runs each fuzz target briefly (docs/fuzzing.md).
# Usage: scripts/test.sh [preset]      (default: ci)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-ci}"
bash scripts/build.sh "$preset"
bash scripts/check-format.sh
ctest --preset "$preset" -j "$(nproc)" --timeout 300
# The fuzz targets, GLIMPSE_FUZZ_SECONDS each (15; 0 skips): clang, ASan and UBSan on the loaders.
fuzz_seconds="${GLIMPSE_FUZZ_SECONDS:-15}"
if [[ "$preset" == ci && "$fuzz_seconds" != 0 ]]; then
  bash scripts/fuzz.sh --seconds "$fuzz_seconds"
fi
