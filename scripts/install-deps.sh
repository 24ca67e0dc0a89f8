#!/usr/bin/env bash
# Installs everything glimpse needs to build and test on a fresh Debian 12 machine.
# Idempotent: packages already present are skipped by apt. Run as root (or with sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang-format
  libsqlite3-dev zlib1g-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev
  libxgboost-dev
  libgtest-dev libgmock-dev
  libdnnl-dev libopenblas-dev
  # the OpenMP build of OpenBLAS for bench/cpu_baselines: the default pthread build's threads
  # fight the OpenMP threads of oneDNN and of the cache flush for the same cores
  libopenblas-openmp-dev
  libtorch-dev
  libonnx-dev libprotobuf-dev
  # the fuzz targets (scripts/fuzz.sh): clang with libFuzzer and the sanitizers' runtimes, and
  # llvm-symbolizer for readable stacks
  clang libclang-rt-14-dev llvm
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "glimpse: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
