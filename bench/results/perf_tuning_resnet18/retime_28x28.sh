#!/bin/bash
# The 28×28 1×1 stride-2 layer, where MetaSchedule's records are taken with its input cached
# (cpu_resnet18.md, "Both picks under both cache protocols"): each variant's pick of run.sh beside
# MetaSchedule's 256-measurement picks of 2026-12-05 (their best.so, LIBRARIES), every kernel
# timed cold (every operand flushed) and with the input cached, 3 rounds alternating.
#   BIN=/path/to/bin OUT=<run.sh's dir> LIBRARIES="a/best.so b/best.so" ./retime_28x28.sh
set -e
cd "$(git rev-parse --show-toplevel)"
out=${OUT:?run.sh output dir}
OP="conv2d:N=1,C=128,H=28,W=28,K=256,R=1,S=1,stride=2,pad=0,bias=1"
pick() {  # the fastest record of OP in a variant's database (glimpse db best)
  "$BIN/glimpse" db best --db "$out/$1.db" --top 1 --json | python3 -c '
import json, sys
name = "conv2d:N=1,C=128,H=28,W=28,K=256,R=1,S=1,stride=2,"
[task] = [t for t in json.load(sys.stdin) if t["name"].startswith(name)]
print(json.dumps(task["best"][0]["config"]))'
}
for variant in ${VARIANTS:-none shipped heldout}; do pick "$variant" > "$out/pick28_$variant.json"; done
for r in 1 2 3; do
  i=0
  for library in $LIBRARIES; do
    i=$((i + 1))
    build/tvm-venv/bin/python bench/peers/metaschedule_retime.py --library "$library" --op "$OP" \
      --rounds 1 > "$out/retime28_ms${i}_r$r.txt"
    echo "r$r metaschedule$i $(tail -2 "$out/retime28_ms${i}_r$r.txt" | tr '\n' ' ')"
  done
  for variant in ${VARIANTS:-none shipped heldout}; do
    for w in "" --warm-activations; do
      echo "r$r $variant ${w:-cold} $("$BIN/bench_cpu_templates" --threads 2 $w --op "$OP" \
        --config "$(cat "$out/pick28_$variant.json")" | grep '^| conv' | cut -d'|' -f5,8)"
    done
  done
done
