#!/usr/bin/env bash
# Creates the Kernel Tuner peer's virtual environment (build/peers-venv) with the pinned versions
# of bench/peers/requirements.txt. Run from anywhere; needs python3 with venv and network access
# to PyPI. Re-running it brings an existing environment to the pinned versions.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="${PEERS_VENV:-$repo/build/peers-venv}"

if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet -r "$repo/bench/peers/requirements.txt"
"$venv/bin/python" -c 'import kernel_tuner; print("kernel_tuner", kernel_tuner.__version__, "in '"$venv"'")'
