#!/bin/bash
# Issue 19's MetaSchedule goal: MetaSchedule's 256-measurement quality within 32 measurements on
# every ResNet-18 layer, for the tuner with the learned performance model. The 12 operators
# MetaSchedule ran (bench/configs/resnet18_cpu_tasks.txt), xgb-rounds with its template seeds, 32
# measurements, seed 0, three ways in one sitting:
#   none      no cost model (the CPU default of the model runs)
#   shipped   --cost-model data/models/perf-cpu-amd-epyc.json (its corpus has every zoo model)
#   heldout   --cost-model of the same training without the 12 operators (every record of them left
#             out of the corpus; trained here first, before anything is timed)
# then each against MetaSchedule's 256-measurement records of 2026-12-04
# (../metaschedule_256/metaschedule_resnet18_t256.json.gz) by bench/cpu_resnet18_report.py.
#   BIN=/path/to/bin OUT=/path/to/dir ./run.sh      (BIN: glimpse, glimpse_cpu_worker, cpu_baselines,
#                                                   bench_cpu_templates)
set -e
out=${OUT:?output dir}
cd "$(git rev-parse --show-toplevel)"
mkdir -p "$out"
tasks=bench/configs/resnet18_cpu_tasks.txt
ops=()
excluded=()
while read -r op; do
  ops+=(--op "$op")
  excluded+=(--exclude-operator "$op")
done < <(grep -v '^#' "$tasks" | sed 's/ *#.*//')
if [[ ! -f $out/perf-no-resnet18.json ]]; then
  date -u +"train %FT%TZ"
  "$BIN/glimpse" train perf-model --corpus data/corpus/cpu-amd-epyc.jsonl.gz \
    "${excluded[@]}" --out "$out/perf-no-resnet18.json" > "$out/train.log" 2>&1
fi
date -u +"peak and baselines %FT%TZ"
"$BIN/bench_cpu_templates" --peak-only --threads 2 > "$out/peak.txt"
"$BIN/cpu_baselines" --check --json "$out/baselines.json" --markdown "$out/baselines.md" \
  > "$out/baselines.log" 2>&1
ms=bench/results/metaschedule_256/metaschedule_resnet18_t256.json.gz
zcat "$ms" > "$out/metaschedule_t256.json"
for variant in ${VARIANTS:-none shipped heldout}; do
  case $variant in
    none) model=() ;;
    shipped) model=(--cost-model data/models/perf-cpu-amd-epyc.json) ;;
    heldout) model=(--cost-model "$out/perf-no-resnet18.json") ;;
  esac
  if [[ ! -f $out/$variant.summary.json ]]; then
    date -u +"$variant %FT%TZ"
    rm -f "$out/$variant.db"
    GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu "${ops[@]}" \
      --tuner xgb-rounds --budget 32 --seed 0 "${model[@]}" --db "$out/$variant.db" \
      --progress log --json > "$out/$variant.summary.json" 2> "$out/$variant.log"
    "$BIN/glimpse" db export --db "$out/$variant.db" | gzip > "$out/$variant.jsonl.gz"
  fi
  python3 bench/cpu_resnet18_report.py --db "$out/$variant.db" --baselines "$out/baselines.json" \
    --metaschedule "$out/metaschedule_t256.json" --checkpoints 8,16,32 > "$out/$variant.md"
done
"$BIN/bench_cpu_templates" --peak-only --threads 2 >> "$out/peak.txt"
date -u +"done %FT%TZ"
