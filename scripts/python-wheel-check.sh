#!/usr/bin/env bash
# Installs the Python package as a user would — `pip install '.[test]'` in a fresh virtual
# environment, which builds the wheel (scikit-build-core: the C++ core, the module, the workers and
# the data folder) — and runs the Python tests against the installed package, from outside the
# repository. Needs the Debian packages of scripts/install-deps.sh. Not part of scripts/test.sh:
# the wheel compiles the core a second time (docs/python.md gives the time).
# Usage: scripts/python-wheel-check.sh [VENV]     (default: build/wheel-venv, made afresh)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-$repo/build/wheel-venv}
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --upgrade pip
started=$SECONDS
"$venv/bin/pip" install "$repo[test]"
echo "python-wheel-check: pip install took $((SECONDS - started)) s"
cd "$(mktemp -d)"
"$venv/bin/python" -c 'import glimpse; print("python-wheel-check: glimpse from", glimpse.__file__, "data", glimpse.data_dir())'
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$repo/python/tests"
