#!/usr/bin/env bash
# A zoo CNN (seeded weights) compiled for CUDA, checked on a machine without a GPU:
#   1. the real artifact built with nvcc (CMake), timed;
#   2. the same compile as a host emulation (docs/compile.md, "The CUDA target") built with g++
#      and the stand-in cuda_runtime.h, run on a seeded input;
#   3. the CPU library of the same model (default configurations) run on that input;
#   4. the two outputs compared (max |diff| ≤ 1e-4 × max |output|, else exit 1).
# Usage: bench/cuda_compile/check.sh [--model resnet18] [--records FILE|none] [--glimpse BIN]
#                                    [--work DIR]
#   --records  GPU records to compile with (default for resnet18:
#              data/gpu-records/resnet18-h200-best.jsonl; none: every kernel a default)
# Needs nvcc, CMake and the repository's .venv (numpy).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
model=resnet18
records=default
glimpse=$repo/build/ci/glimpse
work=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --model) model=$2; shift 2 ;;
    --records) records=$2; shift 2 ;;
    --glimpse) glimpse=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "check.sh: unknown argument '$1'; known: --model, --records, --glimpse, --work" >&2
       exit 2 ;;
  esac
done
if [[ $records == default ]]; then
  records=none
  [[ $model == resnet18 ]] && records=$repo/data/gpu-records/resnet18-h200-best.jsonl
fi
work=${work:-$(mktemp -d)}
python=$repo/.venv/bin/python
mkdir -p "$work"
echo "check.sh: $model, records $records, in $work"
db=()
if [[ $records != none ]]; then
  "$glimpse" db import --db "$work/gpu.db" "$records"
  db=(--db "$work/gpu.db")
fi
"$glimpse" compile "$model" --target cuda "${db[@]}" -o "$work/cuda" 2> "$work/compile.err"
start=$SECONDS
cmake -S "$work/cuda" -B "$work/cuda/build" -DCMAKE_BUILD_TYPE=Release > "$work/nvcc.log" 2>&1
cmake --build "$work/cuda/build" -j 2 >> "$work/nvcc.log" 2>&1
echo "nvcc build: $((SECONDS - start)) s ($(ls "$work/cuda/build" | grep -c -E "^lib$model\.(a|so)$") libraries)"

"$glimpse" compile "$model" --target cuda "${db[@]}" --host-emulation -o "$work/emulated" \
  > /dev/null 2>&1
upper=$(echo "$model" | tr '[:lower:]' '[:upper:]')
c++ -std=c++17 -O2 -fopenmp -w -DGLIMPSE_RT_HOST_EMULATION \
  -I"$repo/tests/compile/cuda_host_emulation" -I"$work/emulated" \
  "-D${upper}_WEIGHTS_FILE=\"$work/emulated/weights.bin\"" "-DMODEL=$model" \
  "-DMODEL_HEADER=\"$model.h\"" \
  -x c++ "$work/emulated/model.cu" "$work"/emulated/kernel_*.cu -x none \
  "$work/emulated/weights.cc" "$repo/tests/compile/cuda_host_emulation/run_model.cc" \
  -o "$work/emulated/run"
size=$(grep -o 'kInputSizes\[\] = {[0-9]*' "$work/emulated/model.cu" | grep -o '[0-9]*$')
"$python" -c "import numpy as np; np.random.seed(1); \
np.random.uniform(-1, 1, $size).astype(np.float32).tofile('$work/input.bin')"
start=$SECONDS
"$work/emulated/run" "$work/input.bin" "$work/emulated.bin"
echo "host emulation run: $((SECONDS - start)) s"

"$glimpse" compile "$model" -o "$work/cpu" > /dev/null 2>&1
cmake -S "$work/cpu" -B "$work/cpu/build" -DCMAKE_BUILD_TYPE=Release > "$work/cpu.log" 2>&1
cmake --build "$work/cpu/build" -j 2 >> "$work/cpu.log" 2>&1
"$work/cpu/build/${model}_run" --input "$work/input.bin" --output "$work/cpu.bin" \
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
