#!/bin/bash
# The relative and plain GraphSAGE networks' hardware16 runs (perf_tuning_relnet, seeds 1–3) and
# the pointwise sitting's hardware16@cols and hardware16@now runs (seeds 1–6) on the same six
# held-out operators, re-timed side by side with 8 passes, with the 8 fastest configurations of
# each operator from the pointwise study's 8-pass re-timing (all 404 of its runs' incumbents:
# perf_tuning_pointwise/sitting/split8/) among the best known's candidates — so that the small
# relnet study is scored against the larger study's best. Run from the repository root with
# nothing else running: bash bench/results/perf_tuning_passes/combined.sh
set -euo pipefail
HERE=bench/results/perf_tuning_passes
OUT=${OUT:-$HERE/combined}  # OUT=… for another sitting
G=${GLIMPSE:-build/ci/glimpse}
BENCH=${BENCH:-build/ci/bench/bench_cpu_templates}
WORK=build/study/passes_combined
rm -rf "$WORK"
mkdir -p "$WORK" "$OUT"
cp bench/results/perf_tuning_relnet/study/hardware16@{rel,plain}-s*.jsonl.gz \
  bench/results/perf_tuning_pointwise/sitting/hardware16@cols-s*.jsonl.gz \
  bench/results/perf_tuning_stemseed/whole/hardware16@now-s*.jsonl.gz "$WORK"/
python3 - "$WORK" <<'PY'
import json, sys
study = json.load(open("bench/results/perf_tuning_relnet/study/study.json"))
study.update(strategies=["hardware16@rel", "hardware16@plain", "hardware16@cols", "hardware16@now"],
             seeds=[1, 2, 3, 4, 5, 6], budget=16)
json.dump(study, open(sys.argv[1] + "/study.json", "w"), indent=2)
PY
cp "$WORK"/study.json "$OUT"/
echo "build $(git rev-parse --short HEAD)" > "$OUT/sitting.log"
echo "recheck $(date -u +%FT%TZ)" >> "$OUT/sitting.log"
env -u OMP_PROC_BIND -u OMP_NUM_THREADS python3 bench/perf_tuning/study.py recheck --out "$WORK" \
  --threads 2 --passes 8 --bench "$BENCH" --glimpse "$G" \
  --best-from bench/results/perf_tuning_pointwise/sitting/split8/recheck.json.gz --best-top 8 \
  --json "$OUT/recheck.json" > "$OUT/recheck.md" 2> "$OUT/recheck.log"
echo "done $(date -u +%FT%TZ)" >> "$OUT/sitting.log"
gzip -9 -f "$OUT/recheck.json"
for k in 1 3 8; do
  python3 bench/perf_tuning/crossfit.py "$WORK" hardware16@rel hardware16@plain hardware16@cols \
    hardware16@now --split "$OUT/recheck.json.gz" --subsets $k > "$OUT/subsets_$k.md"
done
