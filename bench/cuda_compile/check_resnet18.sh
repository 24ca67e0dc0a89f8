#!/usr/bin/env bash
# ResNet-18 (the zoo's, seeded weights) compiled for CUDA with the H200's tuned records
# (data/gpu-records/resnet18-h200-best.jsonl), on a machine without a GPU:
#   1. the real artifact built with nvcc (CMake), timed;
#   2. the same compile as a host emulation (docs/compile.md, "The CUDA target") built with g++
#      and the stand-in cuda_runtime.h, run on a seeded input;
#   3. the CPU library of the same model (default configurations) run on that input;
#   4. the two outputs compared.
# Usage: bench/cuda_compile/check_resnet18.sh [GLIMPSE] [WORK]   (defaults: build/ci/glimpse, a
# fresh temp dir). Needs nvcc, CMake and the repository's .venv (numpy).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
glimpse=${1:-$repo/build/ci/glimpse}
work=${2:-$(mktemp -d)}
python=$repo/.venv/bin/python
mkdir -p "$work"
echo "check_resnet18: in $work, glimpse $("$glimpse" --version 2>/dev/null || echo "$glimpse")"
"$glimpse" db import --db "$work/h200.db" "$repo/data/gpu-records/resnet18-h200-best.jsonl"
"$glimpse" compile resnet18 --target cuda --db "$work/h200.db" -o "$work/cuda"
start=$SECONDS
cmake -S "$work/cuda" -B "$work/cuda/build" -DCMAKE_BUILD_TYPE=Release > "$work/nvcc.log" 2>&1
cmake --build "$work/cuda/build" -j 2 >> "$work/nvcc.log" 2>&1
echo "nvcc build: $((SECONDS - start)) s ($(ls "$work/cuda/build" | grep -c -E '^libresnet18\.(a|so)$') libraries)"

"$glimpse" compile resnet18 --target cuda --db "$work/h200.db" --host-emulation -o "$work/emulated"
c++ -std=c++17 -O2 -fopenmp -w -DGLIMPSE_RT_HOST_EMULATION \
  -I"$repo/tests/compile/cuda_host_emulation" -I"$work/emulated" \
  "-DRESNET18_WEIGHTS_FILE=\"$work/emulated/weights.bin\"" \
  -x c++ "$work/emulated/model.cu" "$work"/emulated/kernel_*.cu -x none \
  "$work/emulated/weights.cc" "$repo/bench/cuda_compile/emulation_driver.cc" -o "$work/emulated/run"
"$python" -c "import numpy as np; np.random.seed(1); \
np.random.uniform(-1, 1, 150528).astype(np.float32).tofile('$work/input.bin')"
start=$SECONDS
"$work/emulated/run" "$work/input.bin" "$work/emulated.bin"
echo "host emulation run: $((SECONDS - start)) s"

"$glimpse" compile resnet18 -o "$work/cpu" > /dev/null 2>&1
cmake -S "$work/cpu" -B "$work/cpu/build" -DCMAKE_BUILD_TYPE=Release > "$work/cpu.log" 2>&1
cmake --build "$work/cpu/build" -j 2 >> "$work/cpu.log" 2>&1
"$work/cpu/build/resnet18_run" --input "$work/input.bin" --output "$work/cpu.bin" \
  --min-repeats 1 --min-time 0 > /dev/null
"$python" - "$work/emulated.bin" "$work/cpu.bin" <<'PY'
import sys
import numpy as np
emulated, cpu = (np.fromfile(path, np.float32) for path in sys.argv[1:3])
error = float(np.abs(emulated - cpu).max())
scale = float(np.abs(cpu).max())
print(f"CUDA artifact (host emulation) against the CPU library: {emulated.size} outputs, "
      f"max |diff| {error:.3g}, max |output| {scale:.4g}, relative {error / scale:.2g}")
sys.exit(0 if error <= 1e-4 * scale else 1)
PY
