#!/usr/bin/env bash
# Runs on a lent GPU machine (docs/gpu-machine.md, "Baselines"): the measured FP32 peak
# (bench/gpu_peak.cc, from the bundle scripts/gpu/bundle.sh made) and cuDNN/cuBLAS on ResNet-18's
# operators (bench/gpu_baselines.py, with the machine's PyTorch), written into one folder:
#   nvidia-smi.txt, gpu_peak.json/.log, gpu_baselines.json/.md/.log
#
# Usage: scripts/gpu/run_baselines.sh [--bundle DIR] [--out DIR] [-- ARGS for gpu_baselines.py]
#   --bundle  the carried bundle (default build/gpu-bundle)
#   --out     where results go (default $OUT, the device tool's folder, else build/gpu-baselines)
# Environment: PYTHON (default python3) must import torch with CUDA.
# Exit status: 0 when both ran and every check passed; else the first failure's status (2: no
# CUDA device or no PyTorch).
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
bundle=build/gpu-bundle
out=${OUT:-build/gpu-baselines}
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bundle) bundle=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "run_baselines.sh: unknown argument '$1'; known: --bundle, --out, --" >&2; exit 2 ;;
  esac
done
cd "$repo"
mkdir -p "$out"
python=${PYTHON:-python3}
peak=$bundle/bin/gpu_peak
if [[ ! -x $peak ]]; then
  echo "run_baselines.sh: $peak is missing; make the bundle first: scripts/gpu/bundle.sh" >&2
  exit 2
fi

# NVRTC 13 from the CUDA installation, else from anywhere on the disk (PyTorch's wheels); the
# bundle's libraries; this compiler's libstdc++ only if the system's is too old.
libs=$bundle/lib
nvrtc=""
for dir in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib; do
  [[ -e $dir/libnvrtc.so.13 ]] && { nvrtc=$dir; break; }
done
if [[ -z $nvrtc ]] && ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libnvrtc.so.13 '; then
  found=$(find / -xdev -name 'libnvrtc.so.13' -not -path '*/proc/*' 2>/dev/null | head -1)
  [[ -n $found ]] && nvrtc=$(dirname "$found")
fi
[[ -n $nvrtc ]] && libs=$libs:$nvrtc
peak_env=(env "LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
if ! "${peak_env[@]}" "$peak" --help >/dev/null 2>&1; then
  peak_env=(env "LD_LIBRARY_PATH=$bundle/lib/fallback:$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
fi

status=0
{
  nvidia-smi -L
  nvidia-smi --format=csv \
    --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit,temperature.gpu
} >"$out/nvidia-smi.txt" 2>&1
cat "$out/nvidia-smi.txt"

echo "== gpu_peak" >&2
"${peak_env[@]}" "$peak" --json "$out/gpu_peak.json" 2>&1 | tee "$out/gpu_peak.log"
rc=${PIPESTATUS[0]}
(( rc != 0 && status == 0 )) && status=$rc
peak_args=()
[[ -s $out/gpu_peak.json ]] && peak_args=(--peak-json "$out/gpu_peak.json")

echo "== gpu_baselines.py" >&2
"$python" bench/gpu_baselines.py "${peak_args[@]}" --json "$out/gpu_baselines.json" \
  --markdown "$out/gpu_baselines.md" "${extra[@]}" 2>&1 | tee "$out/gpu_baselines.log"
rc=${PIPESTATUS[0]}
(( rc != 0 && status == 0 )) && status=$rc
echo "run_baselines.sh: results in $out (exit status $status)" >&2
exit $status
