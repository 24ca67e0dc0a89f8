#!/usr/bin/env bash
# Installs the dependencies, builds glimpse with warnings as errors, checks the format and runs
# every test.
# Usage: scripts/test.sh [preset]      (default: ci)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-ci}"
bash scripts/build.sh "$preset"
bash scripts/check-format.sh
ctest --preset "$preset" -j "$(nproc)" --timeout 300
