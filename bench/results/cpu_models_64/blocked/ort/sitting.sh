#!/bin/bash
# How ort/ was made (../../../model_compile.md, "The zoo's CNNs on Zen 4 with activations kept
# blocked"). First, in this directory, each model exported and compiled both ways from the
# database whose records ../whole_model.sh merged (ResNet-18's: its plain run with the blocked
# run's records imported, as there):
#   glimpse model export resnet50 -o resnet50.onnx
#   glimpse compile resnet50.onnx --db resnet50_merged.db --layout blocked -o resnet50_blocked
#   glimpse compile resnet50.onnx --db resnet50_merged.db --layout nchw -o resnet50_nchw
# Then three rounds of the blocked builds, the second with the NCHW builds too; glimpse run times
# glimpse's library and ONNX Runtime on the same file one after the other per thread count.
export GLIMPSE_PYTHON=${GLIMPSE_PYTHON:-$(git rev-parse --show-toplevel)/.venv/bin/python}
for rep in 1 2 3; do
  for m in resnet18 resnet50 mobilenet_v2; do
    layouts=blocked; [ $rep = 2 ] && layouts="blocked nchw"
    for l in $layouts; do
      date
      glimpse run ${m}_$l --threads 2,1 --min-repeats 20 --min-time 1 --profile \
        --json ${m}_${l}_r$rep.json > ${m}_${l}_r$rep.txt 2>&1 || echo "FAILED $m $l $rep"
      grep -A3 "^threads" ${m}_${l}_r$rep.txt | tail -2
    done
  done
done
date
