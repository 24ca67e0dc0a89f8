#!/usr/bin/env bash
# On a lent GPU machine (docs/gpu-machine.md, "Tuning"): measures a large uniform sample of one
# operator's GPU space (or all of a small space) with `glimpse tune --target cuda`, then exports
# the workload's records as a Kernel Tuner cache, data/gpu-spaces/<kernel>/<GPU>.json.gz, that
# `glimpse tune --space` replays (split knobs become parameters of "AxBxC" strings, replay.h).
#
# Usage: scripts/gpu/brute_force.sh --op TEXT [--kernel NAME] [--gpu-name NAME] [--tuner T]
#                                   [--budget N] [--time-budget S] [--db FILE] [--gpu ORDINAL]
#                                   [--glimpse CMD] [--out-dir DIR]
#   --op          the operator, as `glimpse tune --op` takes it (dense:M=1,N=1000,K=512)
#   --kernel      the folder under the output directory (default: from --op,
#                 "gpu_dense_M1_N1000_K512")
#   --gpu-name    the file's base name (default: nvidia-smi's name of --gpu without "NVIDIA ",
#                 spaces as '_': "H100_80GB_HBM3")
#   --tuner       random (default; uniform sample without replacement) or grid (small spaces)
#   --budget      measurements (default 100000: in effect the whole space, or the time budget)
#   --time-budget seconds of tuning (default 480, inside the device tool's 600 s per command)
#   --db          tuning database (default build/brute-force.db); a rerun with the same database
#                 resumes: records already there count and are not measured again
#   --gpu         CUDA device ordinal (default 0)
#   --glimpse     the command line to run (default build/gpu-bundle/glimpse.sh, from
#                 scripts/gpu/bundle.sh --with-cli)
#   --out-dir     where <kernel>/<GPU>.json.gz goes (default data/gpu-spaces)
set -euo pipefail

op=""
kernel=""
gpu_name=""
tuner=random
budget=100000
time_budget=480
db=build/brute-force.db
gpu=0
glimpse=build/gpu-bundle/glimpse.sh
out_dir=data/gpu-spaces
while [[ $# -gt 0 ]]; do
  case "$1" in
    --op) op=$2; shift 2 ;;
    --kernel) kernel=$2; shift 2 ;;
    --gpu-name) gpu_name=$2; shift 2 ;;
    --tuner) tuner=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --time-budget) time_budget=$2; shift 2 ;;
    --db) db=$2; shift 2 ;;
    --gpu) gpu=$2; shift 2 ;;
    --glimpse) glimpse=$2; shift 2 ;;
    --out-dir) out_dir=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "brute_force.sh: unknown argument '$1'; see --help" >&2; exit 2 ;;
  esac
done
if [[ -z $op ]]; then
  echo "brute_force.sh: --op is required (e.g. --op dense:M=1,N=1000,K=512)" >&2
  exit 2
fi
case "$tuner" in
  random|grid) ;;
  *) echo "brute_force.sh: --tuner '$tuner': known: random, grid" >&2; exit 2 ;;
esac
if [[ -z $kernel ]]; then
  # dense:M=1,N=1000,K=512 → gpu_dense_M1_N1000_K512
  kernel=gpu_$(printf '%s' "$op" | sed -e 's/[:,]/_/g' -e 's/=//g')
fi
if [[ -z $gpu_name ]]; then
  if ! gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader -i "$gpu" 2>/dev/null); then
    echo "brute_force.sh: nvidia-smi cannot name GPU $gpu; give --gpu-name" >&2
    exit 2
  fi
  gpu_name=$(printf '%s' "$gpu_name" | sed -e 's/^NVIDIA //' -e 's/[^A-Za-z0-9._-]/_/g')
fi
mkdir -p "$(dirname "$db")" "$out_dir/$kernel"

# Measure. The report (JSON) names the workload the export needs.
report=$(mktemp)
"$glimpse" tune --target cuda --gpu "$gpu" --op "$op" --tuner "$tuner" --budget "$budget" \
  --time-budget "$time_budget" --db "$db" --progress log --json >"$report"
info=$(python3 - "$report" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
task = report["tasks"][0]
print(f"brute_force.sh: {task['op']}: {task['measurements']} measurements "
      f"({task['resumed']} resumed), by status {task['by_status']}, stop: {task['stop_reason']}",
      file=sys.stderr)
print(task["workload_key"], report["device"])
PY
)
workload=${info%% *}
device=${info#* }
rm -f "$report"

# Export the records of this workload on this device.
cache="$out_dir/$kernel/$gpu_name.json"
"$glimpse" db export --db "$db" --workload "$workload" --device "$device" \
  --format kt-cache -o "$cache"
gzip -9f "$cache"
echo "brute_force.sh: wrote $cache.gz"
