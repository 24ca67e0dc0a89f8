#!/usr/bin/env bash
# Installs the dependencies, builds glimpse with warnings as errors, checks the format, runs
# every test — the C++ suites, then (preset ci, which builds the Python module) the Python
# package's — and (preset ci) runs each fuzz target briefly (docs/fuzzing.md).
# Usage: scripts/test.sh [preset]      (default: ci)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-ci}"
if [[ "$preset" == ci ]]; then
  # The ci preset builds the Python module with .venv's Python (nanobind, pytest, Kernel Tuner).
  bash scripts/python-env.sh
fi
bash scripts/build.sh "$preset"
bash scripts/check-format.sh
ctest --preset "$preset" -j "$(nproc)" --timeout 300
if [[ "$preset" == ci ]]; then
  PYTHONPATH="build/$preset/python" .venv/bin/python -m pytest -q python/tests
fi
# The fuzz targets, GLIMPSE_FUZZ_SECONDS each (15; 0 skips): clang, ASan and UBSan on the loaders.
fuzz_seconds="${GLIMPSE_FUZZ_SECONDS:-15}"
if [[ "$preset" == ci && "$fuzz_seconds" != 0 ]]; then
  bash scripts/fuzz.sh --seconds "$fuzz_seconds"
fi
