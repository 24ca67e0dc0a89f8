#!/bin/bash
# ResNet-18's 28×28 1×1 stride-2 layer, the one layer where glimpse @64 did not reach MetaSchedule
# @256 (../same_sitting): both tuners run again in one sitting, then both picks timed under both
# cache protocols, the rounds alternating:
#   cold  every operand out of the caches before each timed call — glimpse's runner (sweep of 2×
#         LLC, then clflush of the operands) and, for MetaSchedule's kernel, clflush of every
#         argument (bench/peers/metaschedule_retime.py);
#   warm  the input activation left in the caches, the rest flushed — MetaSchedule's runner
#         (`cache_flush_cpu_non_first_arg`: its tuning records) and glimpse's
#         `--warm-activations` (each thread reads back and stores its slice of the input).
#   BIN=/path/to/bin OUT=/path/to/dir [OP=<glimpse op>] ./run.sh
# (BIN: glimpse, glimpse_cpu_worker, bench_cpu_templates.) Needs bench/peers/setup_tvm.sh's
# build/tvm-venv.
set -e
op=${OP:-conv2d:N=1,C=128,H=28,W=28,K=256,R=1,S=1,stride=2,pad=0,bias=1}
out=${OUT:-.}
cd "$(git rev-parse --show-toplevel)"
mkdir -p "$out"
date -u +"peak %FT%TZ"
"$BIN/bench_cpu_templates" --peak-only --threads 2 > "$out/peak.txt"
date -u +"glimpse start %FT%TZ"
rm -f "$out/glimpse64.db"
GLIMPSE_CPU_WORKER=$BIN/glimpse_cpu_worker "$BIN/glimpse" tune --target cpu --op "$op" \
  --tuner xgb-rounds --budget 64 --seed 0 --db "$out/glimpse64.db" --progress log --json \
  > "$out/glimpse64.summary.json" 2> "$out/glimpse64.log"
"$BIN/glimpse" db export --db "$out/glimpse64.db" | gzip > "$out/glimpse64.jsonl.gz"
date -u +"metaschedule start %FT%TZ"
build/tvm-venv/bin/python bench/peers/metaschedule_peer.py --op "$op" --trials 256 \
  --out "$out/metaschedule_t256.json" --work-dir "$out/metaschedule" --resume \
  > "$out/metaschedule.log" 2>&1
library=$(ls "$out"/metaschedule/*/best.so)
# glimpse's pick: the fastest successful record of its 64.
pick=$(zcat "$out/glimpse64.jsonl.gz" | python3 -c '
import json, sys
records = [json.loads(line) for line in sys.stdin]
ok = [r for r in records if r.get("type") == "record" and r["status"] == "ok"]
print(json.dumps(min(ok, key=lambda r: r["time_s"])["config"]))')
echo "$pick" > "$out/glimpse_pick.json"
for round in 1 2 3; do
  date -u +"round $round %FT%TZ"
  build/tvm-venv/bin/python bench/peers/metaschedule_retime.py --library "$library" --op "$op" \
    --rounds 1 --json "$out/metaschedule_retime_r$round.json" > "$out/metaschedule_retime_r$round.txt"
  "$BIN/bench_cpu_templates" --threads 2 --op "$op" --config "$pick" > "$out/glimpse_cold_r$round.txt"
  "$BIN/bench_cpu_templates" --threads 2 --warm-activations --op "$op" --config "$pick" \
    > "$out/glimpse_warm_r$round.txt"
done
date -u +"done %FT%TZ"
