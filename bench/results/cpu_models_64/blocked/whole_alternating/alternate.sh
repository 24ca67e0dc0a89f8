#!/bin/bash
# How whole_alternating/ was made (../../cpu_models_64.md, "The whole models re-timed
# alternating"). First each model compiled both ways from the merged database of ../whole_model.sh
# and built (glimpse at 0d6dd40):
#   glimpse compile resnet50 --db resnet50_merged.db --layout nchw -o resnet50_nchw
#   glimpse compile resnet50 --db resnet50_merged.db --layout blocked -o resnet50_blocked
#   cmake -S resnet50_nchw -B resnet50_nchw/build -DCMAKE_BUILD_TYPE=Release && cmake --build …
# (MobileNet-v2's directories are named mnv2_*). Then the two builds' harnesses alternate, N
# processes each: 20+ timed runs (at least 1 s), then 20 profiled runs.
#   ./alternate.sh resnet50 8; ./alternate.sh mnv2 8; ./alternate.sh vgg16 6
#   python3 summarize.py resnet50 8 >> summary.txt
#   bench/compare_step_profiles.py nchw=alt_resnet50/nchw_1.json,… blocked=alt_resnet50/blocked_1.json,… \
#     > steps_resnet50.md
pre=$1; n=$2
mkdir -p alt_$pre
for i in $(seq 1 $n); do
  for l in nchw blocked; do
    ${pre}_$l/build/*_run --threads 2 --min-repeats 20 --min-time 1 --profile 20 --json alt_$pre/${l}_$i.json
  done
done
