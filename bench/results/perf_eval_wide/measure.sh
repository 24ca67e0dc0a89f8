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
#
# remeasure: the first 60 uniform configurations (--seed 0, as the corpus) of six of the corpus's
#   operators, into build/corpus/remeasure.db, exported beside this script.
# depthwise: MobileNet-v1's eight depthwise layers that MobileNet-v2 does not share, with the
#   corpus's settings (240 uniform, 32 tuned, seed 0), exported to data/corpus/.
# pointwise: MobileNet-v1's nine distinct 1x1 layers, the same way.
# Both resume: the same command again measures what the database does not hold yet.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$repo"
glimpse=${GLIMPSE:?set GLIMPSE to a build of cc0156a (see the comment at the top)}
mkdir -p build/corpus
case "${1:-}" in
  remeasure)
    "$glimpse" corpus measure --models none --ops data/corpus/ops/remeasure_sample.txt \
      --per-operator 60 --tuned-best 0 --seed 0 --db build/corpus/remeasure.db
    "$glimpse" corpus export --db build/corpus/remeasure.db \
      --out bench/results/perf_eval_wide/remeasure.jsonl.gz ;;
  depthwise)
    "$glimpse" corpus measure --models none --ops data/corpus/ops/mobilenet_v1_depthwise.txt \
      --per-operator 240 --tuned-best 32 --seed 0 --db build/corpus/mobilenet-v1-depthwise.db
    "$glimpse" corpus export --db build/corpus/mobilenet-v1-depthwise.db \
      --out data/corpus/cpu-amd-epyc-mobilenet-v1-depthwise.jsonl.gz ;;
  pointwise)
    "$glimpse" corpus measure --models none --ops data/corpus/ops/mobilenet_v1_pointwise.txt \
      --per-operator 240 --tuned-best 32 --seed 0 --db build/corpus/mobilenet-v1-pointwise.db
    "$glimpse" corpus export --db build/corpus/mobilenet-v1-pointwise.db \
      --out data/corpus/cpu-amd-epyc-mobilenet-v1-pointwise.jsonl.gz ;;
  *)
    echo "usage: measure.sh remeasure|depthwise|pointwise (with GLIMPSE set)" >&2
    exit 2 ;;
esac
