#!/usr/bin/env bash
# The two measuring runs of perf_eval.md's sections "The corpus measured again" and "A second
# model's depthwise layers", with the binary that measured the AMD EPYC corpus (a build of
# cc0156a: kCpuTemplateVersion 1, cache flush 0), so that their times and the corpus's are one
# protocol. Run it alone on the corpus's kind of machine (AMD EPYC family 25 model 17).
#
#   git worktree add ../glimpse-cc0156a cc0156a
#   (cd ../glimpse-cc0156a && cmake --preset ci && ninja -C build/ci glimpse glimpse_cpu_worker)
#   GLIMPSE=../glimpse-cc0156a/build/ci/glimpse bench/results/perf_eval_wide/measure.sh remeasure
#   GLIMPSE=../glimpse-cc0156a/build/ci/glimpse bench/results/perf_eval_wide/measure.sh depthwise
#   GLIMPSE=../glimpse-cc0156a/build/ci/glimpse bench/results/perf_eval_wide/measure.sh pointwise
#   GLIMPSE=../glimpse-cc0156a/build/ci/glimpse bench/results/perf_eval_wide/measure.sh third
#
# remeasure: the first 60 uniform configurations (--seed 0, as the corpus) of six of the corpus's
#   operators, into build/corpus/remeasure.db, exported beside this script.
# depthwise: MobileNet-v1's eight depthwise layers that MobileNet-v2 does not share, with the
#   corpus's settings (240 uniform, 32 tuned, seed 0), exported to data/corpus/.
# pointwise: MobileNet-v1's nine distinct 1x1 layers, the same way.
# third: EfficientNet-B0's depthwise and 1x1 layers MobileNet-v2 does not share, and nine batch-1
#   classifier layers of other models, the same way, into three files (perf_eval.md, "A third
#   model's layers and more classifier heads").
# Both resume: the same command again measures what the database does not hold yet.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$repo"
glimpse=${GLIMPSE:?set GLIMPSE to a build of cc0156a (see the comment at the top)}
mkdir -p build/corpus
# measure OPS_FILE PER_OPERATOR TUNED_BEST DB OUT: the corpus's measuring command, then its export.
measure() {
  "$glimpse" corpus measure --models none --ops "$1" --per-operator "$2" --tuned-best "$3" \
    --seed 0 --db "$4"
  "$glimpse" corpus export --db "$4" --out "$5"
}
case "${1:-}" in
  remeasure)
    measure data/corpus/ops/remeasure_sample.txt 60 0 build/corpus/remeasure.db \
      bench/results/perf_eval_wide/remeasure.jsonl.gz ;;
  depthwise)
    measure data/corpus/ops/mobilenet_v1_depthwise.txt 240 32 \
      build/corpus/mobilenet-v1-depthwise.db data/corpus/cpu-amd-epyc-mobilenet-v1-depthwise.jsonl.gz ;;
  pointwise)
    measure data/corpus/ops/mobilenet_v1_pointwise.txt 240 32 \
      build/corpus/mobilenet-v1-pointwise.db data/corpus/cpu-amd-epyc-mobilenet-v1-pointwise.jsonl.gz ;;
  third)
    for part in efficientnet_b0_depthwise efficientnet_b0_pointwise classifier_heads; do
      measure "data/corpus/ops/$part.txt" 240 32 "build/corpus/${part//_/-}.db" \
        "data/corpus/cpu-amd-epyc-${part//_/-}.jsonl.gz"
    done ;;
  *)
    echo "usage: measure.sh remeasure|depthwise|pointwise|third (with GLIMPSE set)" >&2
    exit 2 ;;
esac
