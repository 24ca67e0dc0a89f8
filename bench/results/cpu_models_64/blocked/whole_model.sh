#!/bin/bash
# A whole model compiled twice from one database — NCHW activations, and blocked
# (glimpse compile --layout blocked) — then each built, checked and timed by glimpse run (which
# also times ONNX Runtime on the same graph). The database: the plain seeded @64 run (PLAIN) with
# the blocked run's records (run.sh) imported, so both layouts' kernels are tuned ones.
#   BIN=/path/to/bin PLAIN=/path/to/resnet50_tseeds4.db ./whole_model.sh resnet50
# MobileNet-v2's two libraries were then timed twice more, by hand, alternating:
#   for i in 1 2; do for l in nchw blocked; do glimpse run mobilenet_v2_$l --threads 2 \
#     --min-repeats 20 --min-time 2; done; done
set -e
model=$1
out=${OUT:-.}
here=$(cd "$(dirname "$0")" && pwd)
db="$out/${model}_merged.db"
rm -f "$db"
sqlite3 "$PLAIN" ".backup '$db'"
gunzip -c "$here/${model}_blocked.jsonl.gz" > "$out/${model}_blocked.jsonl"
"$BIN/glimpse" db import --db "$db" "$out/${model}_blocked.jsonl"
for layout in nchw blocked; do
  "$BIN/glimpse" compile "$model" --db "$db" --layout "$layout" -o "$out/${model}_$layout" \
    > "$out/${model}_${layout}_compile.txt" 2>&1
done
for layout in nchw blocked; do
  "$BIN/glimpse" run "$out/${model}_$layout" --threads 2 --min-repeats 20 --min-time 2 \
    --json "$out/${model}_${layout}_run.json" > "$out/${model}_${layout}_run.txt" 2>&1
done
