#!/bin/bash
# The blocked run of a model (run.sh) beside its plain run of ../template_seeds (the seeded @64
# run of 12-03), re-measured together, interleaved (top 1, 2 passes), then the libraries right
# after. PLAIN: the plain run's database.
#   BIN=/path/to/bin PLAIN=/path/to/vgg16_tseeds4.db ./compare.sh vgg16
# TASKS: another task list than bench/configs/MODEL_cpu_tasks.txt (ResNet-18: its fused list).
set -e
model=$1
out=${OUT:-.}
here=$(cd "$(dirname "$0")" && pwd)
cd "$(git rev-parse --show-toplevel)"
# The plain task list, convolutions only (the blocked run has no dense layers).
tasks="$out/${model}_conv_tasks.txt"
grep -E '^(#|conv2d|depthwise_conv2d)' "${TASKS:-bench/configs/${model}_cpu_tasks.txt}" > "$tasks"
python3 bench/cpu_remeasure_runs.py --run plain="$PLAIN" --run blocked="$out/${model}_blocked.db" \
  --tasks "$tasks" --top 1 --passes 2 --bench "$BIN/bench_cpu_templates" --reference plain \
  --out "$out/${model}_remeasure.json" > "$out/${model}_remeasure.md"
grep -v '^#' "$tasks" | sed -e 's/ *#.*//' -e 's/,relu6=1/,relu=1/' -e 's/,residual=1//' \
  > "$out/${model}_baseline_ops.txt"
"$BIN/cpu_baselines" --check --ops "$out/${model}_baseline_ops.txt" \
  --json "$out/${model}_baselines.json" > "$out/${model}_baselines.md"
python3 bench/cpu_remeasure_vs_baselines.py "$out/${model}_remeasure.json" \
  "$out/${model}_baselines.json" --reference plain > "$out/${model}_vs_baselines.md"
# VGG-16 was compared a second time, 18:52–18:59 UTC, with the same databases and binaries
# (OUT=vgg16_second): its first sitting's baselines read a disturbed 2-thread peak.
