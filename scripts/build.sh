#!/usr/bin/env bash
# Installs the dependencies (Debian packages) and builds glimpse into build/<preset>.
# Usage: scripts/build.sh [preset]     (presets: default, debug, ci — see CMakePresets.json)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
bash scripts/install-deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
