#!/bin/bash
# ResNet-18 compiled blocked before and after the recheck, beside ONNX Runtime, alternating (the
# machine has a fast and a slow mode per process: only paired runs compare). In OUT, after run.sh:
#   glimpse db import ../resnet18/resnet18_tseeds4.jsonl (the plain run: the classifier's records)
#   and before.jsonl / after.db's export into m_before.db / m_after.db;
#   glimpse model export resnet18 -o resnet18.onnx
#   glimpse compile resnet18.onnx --db m_$w.db --layout blocked -o r18_$w   (w = before, after)
# Then ROUNDS rounds of both, in alternating order; each run times glimpse's library and ONNX
# Runtime on the same file, at 2 threads then 1.
#   BIN=/path/to/bin OUT=/path/to/dir ./sitting.sh
set -e
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
export GLIMPSE_PYTHON=${GLIMPSE_PYTHON:-$root/.venv/bin/python}
cd "${OUT:-.}"
for rep in $(seq 1 "${ROUNDS:-4}"); do
  order="before after"; [ $((rep % 2)) = 0 ] && order="after before"
  for w in $order; do
    date
    "$BIN/glimpse" run r18_$w --threads 2,1 --min-repeats 20 --min-time 1 --profile \
      --json r18_${w}_r$rep.json > r18_${w}_r$rep.txt 2>&1 || echo "FAILED $w $rep"
    grep -A3 "^threads" r18_${w}_r$rep.txt | tail -2
  done
done
date
