#!/usr/bin/env bash
# A Python virtual environment (.venv) with the packages glimpse's Python-side tools use: onnx
# and onnxruntime (the ONNX test models and their reference outputs, scripts/onnx/), numpy, and
# what the Python package builds and is tested with (python/requirements.txt: nanobind, pytest,
# Kernel Tuner, Optuna).
# Usage: scripts/python-env.sh [DIR]      (default: .venv in the repository)
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${1:-.venv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" || {
    echo "glimpse: python3 -m venv failed; install python3-venv (apt-get install python3-venv)" >&2
    exit 1
  }
fi
"$venv/bin/pip" install --quiet --upgrade pip
"$venv/bin/pip" install --quiet -r scripts/onnx/requirements.txt -r python/requirements.txt
echo "glimpse: Python environment ready in $venv"
