#!/usr/bin/env bash
# What a session with a lent GPU machine runs, in as few device-tool calls as possible: a machine
# is released after a short idle time and restarting one costs minutes of the session's device
# time, so each call should do as much as fits in its 600 s (docs/gpu-machine.md, "A whole session").
#
# Usage: scripts/gpu/session.sh PART [--out DIR] [--deadline S] [--tuner T] [--db FILE]
#                                [--bundle DIR]
#   PART  check  nvidia-smi; the bundled CUDA tests (device tests included); the FP32 peak and
#                cuDNN/cuBLAS on ResNet-18 (run_baselines.sh); then, with the time left, a
#                brute-force sample of ResNet-18's classifier (dense 1×1000×512)
#         tune   glimpse tune --target cuda --model resnet18 with --tuner T (default xgb), the
#                time split evenly over its tasks; the database is OUT/resnet18-T.db
#                (carry it back and pass --db to resume)
#         brute  a brute-force sample of one ResNet-18 convolution (C=128, 28×28, 3×3)
#         compiled  ResNet-18 compiled for CUDA with the H200's records
#                (data/gpu-records/resnet18-h200-best.jsonl), built with nvcc there and run by
#                glimpse run (checked against the reference interpreter, timed with CUDA
#                events, OUT/compiled-resnet18.json); then PyTorch eager beside it
#                (bench/gpu_torch_model.py, OUT/torch-resnet18.json)
#   --out       where everything goes (default $OUT, the device tool's folder)
#   --deadline  seconds the whole call may take (default 560, inside the tool's 600)
#   --bundle    the carried bundle (default build/gpu-bundle)
#
# Each step writes OUT/<step>.log; OUT/session.txt lists every step with its exit status and
# seconds (124: stopped at its share of the deadline). A step that fails does not stop the next.
# Needs the bundle: scripts/gpu/bundle.sh --with-cli, carried as build/gpu-bundle.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
part=${1:-}
[[ $# -gt 0 ]] && shift
out=${OUT:-}
deadline=560
tuner=xgb
db=""
bundle=build/gpu-bundle
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --deadline) deadline=$2; shift 2 ;;
    --tuner) tuner=$2; shift 2 ;;
    --db) db=$2; shift 2 ;;
    --bundle) bundle=$2; shift 2 ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "session.sh: unknown argument '$1'; known: --out, --deadline, --tuner, --db, --bundle" >&2
       exit 2 ;;
  esac
done
case "$part" in
  check|tune|brute|compiled) ;;
  *) echo "session.sh: PART must be check, tune, brute or compiled (got '$part'); --help says more" >&2
     exit 2 ;;
esac
if [[ -z $out ]]; then
  echo "session.sh: no output folder: give --out or run where \$OUT is set" >&2
  exit 2
fi
if ! [[ $deadline =~ ^[0-9]+$ ]] || (( deadline < 60 )); then
  echo "session.sh: --deadline must be a whole number of seconds, at least 60 (got '$deadline')" >&2
  exit 2
fi
cd "$repo"
# check needs the tests (and the command line only for its last step); tune and brute need the
# command line.
needed=$bundle/glimpse.sh
[[ $part == check ]] && needed=$bundle/run-tests.sh
if [[ ! -x $needed ]]; then
  echo "session.sh: $needed is missing: make the bundle with scripts/gpu/bundle.sh --with-cli" \
       "and carry it" >&2
  exit 2
fi
mkdir -p "$out"
summary=$out/session.txt
start=$SECONDS
left() { echo $(( deadline - (SECONDS - start) )); }

# step NAME SHARE COMMAND...: runs COMMAND with at most SHARE seconds (and never past the
# deadline), its output in OUT/NAME.log; records the exit status and the seconds it took.
step() {
  local name=$1 share=$2
  shift 2
  local limit
  limit=$(left)
  (( share < limit )) && limit=$share
  if (( limit < 10 )); then
    printf '%-12s skipped: %s s left\n' "$name" "$(left)" | tee -a "$summary"
    return 0
  fi
  local began=$SECONDS
  echo "session.sh: $name (at most $limit s)" >&2
  timeout --kill-after=10 "$limit" "$@" >"$out/$name.log" 2>&1
  local code=$?
  printf '%-12s exit %-3s %4s s\n' "$name" "$code" "$((SECONDS - began))" | tee -a "$summary"
}

echo "session.sh $part: $(date -u +%FT%TZ), deadline $deadline s" >"$summary"
case "$part" in
  check)
    step nvidia-smi 30 nvidia-smi
    step cuda-tests 180 env GLIMPSE_SOURCE_DIR="$repo" "$bundle/run-tests.sh" \
      --gtest_output="json:$out/cuda-tests.json"
    step baselines 240 scripts/gpu/run_baselines.sh --bundle "$bundle" --out "$out"
    # Whatever is left samples the classifier's space (brute_force.sh stops at its own budget).
    budget=$(( $(left) - 40 ))
    if [[ ! -x $bundle/glimpse.sh ]]; then
      printf '%-12s skipped: no glimpse.sh in the bundle (bundle.sh --with-cli)\n' brute-dense |
        tee -a "$summary"
    elif (( budget > 30 )); then
      step brute-dense $(( budget + 30 )) scripts/gpu/brute_force.sh \
        --op dense:M=1,N=1000,K=512,bias=1 --time-budget "$budget" \
        --db "$out/brute-dense.db" --out-dir "$out/recorded" --glimpse "$bundle/glimpse.sh"
    fi
    ;;
  tune)
    db=${db:-$out/resnet18-$tuner.db}
    # The model's tasks share the time; the rest covers the builds of the last batch and the report.
    tasks=$("$bundle/glimpse.sh" model show resnet18 --json |
            python3 -c 'import json, sys; print(len(json.load(sys.stdin)["tasks"]))') || tasks=19
    per_task=$(( ($(left) - 60) / tasks ))
    step "tune-$tuner" $(( $(left) - 10 )) "$bundle/glimpse.sh" tune --target cuda \
      --model resnet18 --tuner "$tuner" --time-budget "$per_task" \
      --db "$db" --progress log
    ;;
  brute)
    budget=$(( $(left) - 40 ))
    step brute-conv $(( budget + 30 )) scripts/gpu/brute_force.sh \
      --op conv2d:N=1,C=128,H=28,W=28,K=128,R=3,S=3,stride=1,pad=1,bias=1 \
      --time-budget "$budget" --db "${db:-$out/brute-conv.db}" --out-dir "$out/recorded" \
      --glimpse "$bundle/glimpse.sh"
    ;;
  compiled)
    work=$(mktemp -d)
    step import 60 "$bundle/glimpse.sh" db import --db "$work/h200.db" \
      data/gpu-records/resnet18-h200-best.jsonl
    step compile 120 "$bundle/glimpse.sh" compile resnet18 --target cuda --db "$work/h200.db" \
      -o "$work/resnet18-cuda"
    cp "$work/resnet18-cuda/glimpse-compile.json" "$out/compiled-resnet18-manifest.json" 2>/dev/null
    step run-compiled 300 "$bundle/glimpse.sh" run "$work/resnet18-cuda" --python none \
      --min-repeats 50 --min-time 0.5 --json "$out/compiled-resnet18.json"
    step torch-resnet18 120 python3 bench/gpu_torch_model.py --model resnet18 \
      --json "$out/torch-resnet18.json"
    ;;
esac
echo "session.sh $part: done in $((SECONDS - start)) s" | tee -a "$summary"
