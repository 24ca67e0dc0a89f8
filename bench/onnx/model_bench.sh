#!/usr/bin/env bash
# Issue 18's whole-model benchmark for one torchvision model exported to ONNX
# (bench/onnx/export_torchvision.py): tune it with glimpse (a global budget), compile it, run it
# at 1 and 2 threads beside ONNX Runtime (glimpse run), and time PyTorch eager at the same thread
# counts, one after the other in one sitting. Results under
# bench/results/model_compile/<model>-b<budget>[-<tag>]/ (TAG=… names a rerun on another day or
# machine, so that earlier results stay). DB=FILE skips the tuning and compiles with that database
# (a run tuned elsewhere, e.g. 1000 measurements per task): results then under
# bench/results/model_compile/<model>-<TAG>/, and the budget argument is ignored. LAYOUT=blocked
# compiles with activations kept channel-blocked (glimpse compile --layout blocked; the database
# then needs the blocked operators' records, tuned with --layout blocked).
# Needs torch and torchvision beside onnxruntime: pip install -r bench/onnx/requirements.txt.
#   [TAG=name] [DB=file] [LAYOUT=nchw|blocked] bench/onnx/model_bench.sh resnet18 [global budget, default 600] [python, default .venv]
set -euo pipefail
cd "$(dirname "$0")/../.."
model="$1"
budget="${2:-600}"
python="${3:-.venv/bin/python}"
glimpse="${GLIMPSE:-build/ci/glimpse}"
onnx="bench/onnx/models/$model.onnx"
if ! "$python" -c "import torch, torchvision, onnxruntime" 2> /dev/null; then
  echo "model_bench.sh: $python lacks torch, torchvision or onnxruntime; run" \
    "scripts/python-env.sh, then $python -m pip install -r bench/onnx/requirements.txt" >&2
  exit 2
fi
if [ -n "${DB:-}" ]; then
  [ -n "${TAG:-}" ] || { echo "model_bench.sh: DB=$DB needs TAG=… to name the results" >&2; exit 2; }
  [ -f "$DB" ] || { echo "model_bench.sh: DB=$DB: no such database" >&2; exit 2; }
  out="bench/results/model_compile/$model-$TAG"
else
  out="bench/results/model_compile/$model-b$budget${TAG:+-$TAG}"
fi
mkdir -p "$out"
[ -f "$onnx" ] || "$python" bench/onnx/export_torchvision.py --models "$model"
echo "# $(date -u +%FT%TZ) on $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs" \
  > "$out/commands.txt"
if [ -n "${DB:-}" ]; then
  db="$DB"
  echo "# tuned elsewhere: $db" >> "$out/commands.txt"
else
  db="$out/tune.db"
  echo "# $glimpse tune --target cpu --model $onnx --input-shape input=1x3x224x224 --tuner xgb --global-budget $budget --db $db" \
    >> "$out/commands.txt"
  start=$(date +%s)
  "$glimpse" tune --target cpu --model "$onnx" --tuner xgb --global-budget "$budget" --db "$db" \
    --progress log --json > "$out/tune.json" 2> "$out/tune.log"
  echo "# tuning took $(( $(date +%s) - start )) s" >> "$out/commands.txt"
fi
layout="${LAYOUT:-nchw}"
echo "# $glimpse compile $onnx --db $db --layout $layout -o $out/lib" >> "$out/commands.txt"
"$glimpse" compile "$onnx" --db "$db" --layout "$layout" -o "$out/lib" > "$out/compile.txt" 2>&1
"$glimpse" run "$out/lib" --threads 1,2 --python "$python" --json "$out/run.json" \
  > "$out/run.txt" 2> "$out/run.log"
for t in 1 2; do
  "$python" bench/onnx/torch_time.py --model "$model" --threads "$t" --json "$out/torch-${t}t.json" \
    > /dev/null
done
# Only the manifest stays (the weights are tens of MB; glimpse compile remakes the rest).
find "$out/lib" -mindepth 1 -maxdepth 1 ! -name glimpse-compile.json -exec rm -rf {} +
cat "$out/run.txt"
