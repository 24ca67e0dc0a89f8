#!/bin/bash
# hardware16 with this build (the seeds parallel over blocks and bands of rows where the blocks
# do not share out among the threads) on the one study operator that changes, MobileNet-v2's plain
# 1×1 24 → 144 at 56×56 (9 blocks of 16 on 2 threads), seeds 1–6, as hardware16@bal, beside every
# run sitting.sh re-timed, re-timed side by side on that operator into balance/. Run from the
# repository root after sitting.sh, with nothing else running:
#   bash bench/results/perf_tuning_pointwise/balance.sh
set -euo pipefail
source bench/perf_tuning/recheck_sitting.sh
HERE=bench/results/perf_tuning_pointwise
OUT=$HERE/balance
G=${GLIMPSE:-build/ci/glimpse}
BENCH=${BENCH:-build/ci/bench/bench_cpu_templates}
OP='conv2d:N=1,C=24,H=56,W=56,K=144,R=1,S=1,stride=1,pad=0,dilation=1,bias=1,relu=0'
WORK=build/study/balance
rm -rf "$WORK"
mkdir -p "$WORK" "$OUT"
cp build/study/pointwise/*.jsonl.gz "$WORK"/
for db in build/study/pointwise/hardware16@cols-s*.db; do
  "$G" db export --db "$db" | gzip -9 > "$WORK/$(basename "$db" .db).jsonl.gz"
done
# The study as sitting.sh left it, with this one operator.
python3 - "$WORK" "$OP" <<'PY'
import json, sys
work, op = sys.argv[1], sys.argv[2]
study = json.load(open("build/study/pointwise/study.json"))
assert op in study["ops"], op
study["ops"] = [op]
json.dump(study, open(f"{work}/study.json", "w"), indent=1)
PY
echo "$OP" > "$WORK/ops.txt"
echo "build $(git rev-parse --short HEAD)" > "$OUT/sitting.log"
echo "study $(date -u +%FT%TZ)" >> "$OUT/sitting.log"
python3 bench/perf_tuning/study.py run --ops "$WORK/ops.txt" --model build/study/perf-heldout.json \
  --label bal --out "$WORK" --budget 96 --seeds 1,2,3,4,5,6 --strategies hardware16 \
  --glimpse "$G" >> "$OUT/sitting.log" 2>&1
recheck_sitting "$WORK" "$OUT"
gzip -9 -f "$OUT/recheck.json"
cp "$WORK"/study.json "$OUT/"
for db in "$WORK"/hardware16@bal-s*.db; do
  "$G" db export --db "$db" | gzip -9 > "$OUT/$(basename "$db" .db).jsonl.gz"
done
cp "$WORK"/hardware16@bal-s*.log "$OUT/"
