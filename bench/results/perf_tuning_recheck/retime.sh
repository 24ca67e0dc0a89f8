#!/bin/bash
# Another re-timing sitting of the seventh study's runs (perf_tuning.md, "Seventh study"): every
# run's incumbents in the study's folder (seeds 1–6; hardware16-diverse's too once diverse.sh has
# run) re-timed side by side once more, into NAME/, to see how far a strategy's q@16 moves from
# one sitting to the next. third_retiming/ and fifth_retiming/ were made so. Needs the study's
# databases (build/study/recheck_more, made by run.sh and more_seeds.sh); run from the
# repository root with nothing else running:
#   bash bench/results/perf_tuning_recheck/retime.sh NAME
set -euo pipefail
source bench/perf_tuning/recheck_sitting.sh
HERE=bench/results/perf_tuning_recheck
OUT=$HERE/${1:?give the output folder name, e.g. fifth_retiming}
G=${GLIMPSE:-build/ci/glimpse}
BENCH=${BENCH:-build/ci/bench/bench_cpu_templates}
WORK=build/study/recheck_more
mkdir -p "$OUT"
echo "build $(git rev-parse --short HEAD)" > "$OUT/sitting.log"
recheck_sitting "$WORK" "$OUT"
GLIMPSE=$G python3 "$HERE/choice_bound.py" "$WORK" "$OUT/recheck.json" > "$OUT/choice_bound.md"
for seeds in 1,2,3 4,5,6; do
  GLIMPSE=$G python3 "$HERE/choice_bound.py" "$WORK" "$OUT/recheck.json" --seeds "$seeds" \
    > "$OUT/choice_bound_seeds${seeds//,/}.md"
done
gzip -9 -f "$OUT/recheck.json"
