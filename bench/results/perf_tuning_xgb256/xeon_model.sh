#!/bin/bash
# After sitting.sh, on the same Intel Xeon host: the relative network trained on this machine's own
# corpus (data/corpus/cpu-intel-xeon.jsonl.gz: ResNet-18, AlexNet, BERT and VGG-16 operators, so
# none of the six held-out ones; roofline of data/hardware/cpu_machine_profile.json, the Xeon's) as
# the cost model of `--hardware-budget 16`, seeds 4–6, its incumbents re-timed with 8 passes beside
# the 8 fastest configurations per operator of sitting.sh's re-timing (which hold xgb cold's stem
# configuration). Run from the repository root with nothing else running.
set -euo pipefail
source bench/perf_tuning/recheck_sitting.sh
HERE=bench/results/perf_tuning_xgb256
OUT=${OUT:-$HERE/xeon_model}
G=${GLIMPSE:-build/ci/glimpse}
BENCH=${BENCH:-build/ci/bench/bench_cpu_templates}
WORK=build/study/xeonrel
MODEL=$WORK/graphsage-efficiency-models.json
mkdir -p "$WORK" "$OUT"
[ -f "$MODEL" ] || "$G" train perf-model --corpus data/corpus/cpu-intel-xeon.jsonl.gz \
  --model graphsage --target log-efficiency --roofline-profile data/hardware/cpu_machine_profile.json \
  --seed 0 --out "$MODEL" > "$WORK/train.log" 2>&1
rm -rf "$WORK/study"
echo "build $(git rev-parse --short HEAD)" > "$OUT/sitting.log"
echo "hardware16@xeonrel seeds 4-6 $(date -u +%FT%TZ)" >> "$OUT/sitting.log"
python3 bench/perf_tuning/study.py run --ops bench/results/perf_tuning_cold/ops.txt --model "$MODEL" \
  --label xeonrel --out "$WORK/study" --budget 256 --seeds 4,5,6 --strategies hardware16 \
  --glimpse "$G" >> "$OUT/sitting.log" 2>&1
recheck_sitting "$WORK/study" "$OUT" --passes 8 --best-from "$HERE/recheck.json.gz" --best-top 8
gzip -9 -f "$OUT/recheck.json"
cp "$WORK/study/study.json" "$WORK"/study/*.log "$OUT"/
for db in "$WORK"/study/*.db; do
  "$G" db export --db "$db" | gzip -9 > "$OUT/$(basename "$db" .db).jsonl.gz"
done
python3 bench/perf_tuning/crossfit.py "$WORK/study" hardware16@xeonrel --split "$OUT/recheck.json.gz" \
  > "$OUT/crossfit.md"
