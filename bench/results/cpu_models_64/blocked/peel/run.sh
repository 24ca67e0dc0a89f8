#!/bin/bash
# The column-tile peel (Loop::peel_edges, NCHWc with guarded loads: the first and last column
# tile as constant copies that skip their padding taps, the tiles between unguarded), measured on
# the same picks before and after: each model's tuned picks built by the code before the change
# and by the variants after it (BUILDS: LABEL=DIR …, each DIR a copy of a commit's
# bench_cpu_templates and cpu_baselines), in alternating processes beside oneDNN's blocked
# primitive (bench/cpu_alternate_vs_onednn.py, one --bench per build; oneDNN from the last DIR).
#   BUILDS="old=/bin/a new=/bin/b" MODEL=vgg16|resnet18|resnet50 DB=picks.db OUT=/dir \
#     [ROUNDS=3] [FILTER=regex] ./run.sh
# (MODEL names bench/configs/MODEL_cpu_tasks.txt; FILTER keeps the convolutions it matches, e.g.
# 'pad=[1-9]' those with padding, the only ones the change touches.)
# (DB a tuning database of the model's blocked operators, e.g. vgg16_256/at256.jsonl.gz imported
# with `glimpse db import`.)
set -e
rounds=${ROUNDS:-3}
cd "$(git rev-parse --show-toplevel)"
mkdir -p "$OUT"
tasks="$OUT/${MODEL}_conv_tasks.txt"
grep -E '^(#|conv2d)' "bench/configs/${MODEL}_cpu_tasks.txt" | grep -E "^#|${FILTER:-.}" > "$tasks"
benches=()
for build in $BUILDS; do
  benches+=(--bench "${build%%=*}=${build#*=}/bench_cpu_templates")
  last=${build#*=}
done
python3 bench/cpu_alternate_vs_onednn.py --run picks="$DB" --tasks "$tasks" --rounds "$rounds" \
  --threads 2 "${benches[@]}" --baselines "$last/cpu_baselines" --out "$OUT/$MODEL.json" \
  > "$OUT/$MODEL.md"
