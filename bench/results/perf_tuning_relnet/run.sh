#!/bin/bash
# Zen 4, 2026-12-07: GraphSAGE relative to the roofline (`train perf-model --target log-efficiency`)
# beside plain GraphSAGE, both trained the same way without MobileNet-v2 and ResNet-50 on the six
# corpus files: (1) scored on the held-out models' records as model files, (2) as the cost model
# of `--hardware-budget 16` on the six held-out operators, the two interleaved per operator,
# seeds 1–3, then every run's incumbents re-timed in one sitting.
# From the repository root: bench/results/perf_tuning_relnet/run.sh [OUT]
set -euo pipefail
OUT=${1:-build/study/relnet}
HERE=$(dirname "$0")
G=${GLIMPSE:-build/ci/glimpse}
E=data/corpus/cpu-amd-epyc
ALL=$E.jsonl.gz,$E-mobilenet-v1-depthwise.jsonl.gz,$E-mobilenet-v1-pointwise.jsonl.gz,$E-efficientnet-b0-depthwise.jsonl.gz,$E-efficientnet-b0-pointwise.jsonl.gz,$E-classifier-heads.jsonl.gz
P=data/hardware/cpu_machine_profile_amd_epyc.json
EXCLUDE=(--exclude-model mobilenet_v2 --exclude-model resnet50)
mkdir -p "$OUT"
REL=$OUT/graphsage-efficiency-models.json
PLAIN=$OUT/graphsage-models.json
[ -f "$REL" ] || "$G" train perf-model --corpus "$ALL" --model graphsage --target log-efficiency \
  --roofline-profile "$P" "${EXCLUDE[@]}" --seed 0 --out "$REL" 2> "$OUT/train.log"
[ -f "$PLAIN" ] || "$G" train perf-model --corpus "$ALL" --model graphsage "${EXCLUDE[@]}" \
  --seed 0 --out "$PLAIN" 2> "$OUT/train-plain.log"
# (1) The files on the held-out models' records.
"$G" perf-model evaluate --corpus "$ALL" --profile "$P" --split models \
  --predictors "file:$REL,file:$PLAIN" --json "$OUT/evaluate.json" > "$OUT/evaluate.txt"
# (2) The tuning runs, interleaved per operator.
while read -r op; do
  echo "$op" > "$OUT/op.txt"
  for pair in "rel:$REL" "plain:$PLAIN"; do
    bench/perf_tuning/study.py run --ops "$OUT/op.txt" --model "${pair#*:}" \
      --strategies hardware16 --label "${pair%%:*}" --seeds 1,2,3 --out "$OUT/study"
  done
done < bench/results/perf_tuning_zen3/ops.txt
bench/perf_tuning/study.py recheck --out "$OUT/study" --passes 3 --json "$OUT/study/recheck.json" \
  > "$OUT/study/recheck.md"
gzip -f "$OUT/study/recheck.json"
bench/results/perf_tuning_recheck/by_operator.py "$OUT/study" "$OUT/study/recheck.json.gz" \
  hardware16@rel hardware16@plain > "$OUT/study/by_operator.md"
