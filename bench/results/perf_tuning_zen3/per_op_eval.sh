#!/bin/bash
# How each transfer model orders this machine's configurations of each studied operator
# (perf_tuning_zen3.md): every record of the study in one corpus, one corpus per operator,
# `glimpse perf-model evaluate` of the four model files on 99 % of it.
# Usage: bench/results/perf_tuning_zen3/per_op_eval.sh STUDY_DIR MODEL_DIR OUT_DIR
set -e
STUDY=$1 MODELS=$2 OUT=$3
GLIMPSE=${GLIMPSE:-build/ci/glimpse}
mkdir -p "$OUT"; rm -f "$OUT/merged.db"*
for db in "$STUDY"/*.db; do
  "$GLIMPSE" db export --db "$db" > "$OUT/part.jsonl"
  "$GLIMPSE" db import --db "$OUT/merged.db" "$OUT/part.jsonl" > /dev/null
done
"$GLIMPSE" corpus export --db "$OUT/merged.db" --out "$OUT/study.jsonl.gz"
python3 - "$OUT" <<'PY'
import gzip, json, sys
folder = sys.argv[1]
with gzip.open(f"{folder}/study.jsonl.gz", "rt") as f:
    header, records = json.loads(f.readline()), [json.loads(line) for line in f]
for i, op in enumerate(sorted({r["op"] for r in records})):
    with gzip.open(f"{folder}/op{i}.jsonl.gz", "wt") as f:
        mine = [r for r in records if r["op"] == op]
        f.write(json.dumps(dict(header, records=len(mine), operators=1)) + "\n")
        for r in mine: f.write(json.dumps(r) + "\n")
PY
P=file:$MODELS/heldout-xgb.json,file:$MODELS/heldout-xgb-roofline.json
P=$P,file:$MODELS/heldout-xgb-rank.json,file:$MODELS/heldout-xgb-rank-roofline.json
for c in "$OUT"/op*.jsonl.gz; do
  echo "## $(zcat "$c" | sed -n 2p | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["op"])')"
  "$GLIMPSE" perf-model evaluate --corpus "$c" --split random --test-fraction 0.99 \
    --predictors "$P" --quiet
done
