#!/usr/bin/env bash
# Builds glimpse's libFuzzer targets (the `fuzz` CMake preset: clang, AddressSanitizer, UBSan,
# coverage instrumentation) and runs each for a bounded time, from seed corpora made of the
# repository's own files (docs/fuzzing.md). A crash, a sanitizer report, a leak, a hang (10 s per
# input) or an exception other than glimpse::Error stops that target: its input is kept as
# build/fuzz/crashes/<target>-crash-…, the log in build/fuzz/logs/<target>.log, and the script
# exits 1 after running the others.
#
# Usage: scripts/fuzz.sh [--seconds S] [--runs N] [--only NAME[,NAME…]] [--report FILE]
#   --seconds  time per target (default 60)
#   --runs     stop a target after N inputs if that comes first (the long runs: --runs 1000000)
#   --only     some targets: operator, restriction, json_lines, recorded_space, t1, study,
#              model_file, onnx, hardware_model, worker_protocol
#   --report   also write a Markdown table (target, inputs run, corpus size, result) to FILE
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
seconds=60
runs_limit=-1
only=""
report=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --runs) runs_limit=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --report) report=$2; shift 2 ;;
    *) echo "fuzz.sh: unknown argument '$1'; known: --seconds, --runs, --only, --report" >&2; exit 2 ;;
  esac
done
targets=(operator restriction json_lines recorded_space t1 study model_file onnx hardware_model
         worker_protocol)
if [[ -n "$only" ]]; then
  IFS=, read -r -a wanted <<< "$only"
  for name in "${wanted[@]}"; do
    [[ " ${targets[*]} " == *" $name "* ]] || {
      echo "fuzz.sh: --only: unknown target '$name'; known: ${targets[*]}" >&2; exit 2; }
  done
  targets=("${wanted[@]}")
fi
command -v clang++ > /dev/null || {
  echo "fuzz.sh: clang++ is missing (scripts/install-deps.sh installs clang and libFuzzer)" >&2
  exit 2; }

echo "fuzz.sh: building the fuzz targets (build/fuzz)"
mkdir -p build
cmake --preset fuzz > build/fuzz-configure.log 2>&1 || { cat build/fuzz-configure.log >&2; exit 1; }
cmake --build --preset fuzz

out=build/fuzz
mkdir -p "$out/logs" "$out/crashes"
# Seeds: the real inputs of each loader in the repository, rewritten every run.
make_seeds() {
  local name=$1 dir=$out/seeds/$1
  rm -rf "$dir"
  mkdir -p "$dir"
  case "$name" in
    operator)
      grep -hv '^#' bench/perf_tuning/heldout_ops.txt bench/configs/resnet18_cpu_tasks.txt |
        awk 'NF { print > ("'"$dir"'/op-" NR) }' ;;
    restriction)
      python3 - "$dir" <<'PY'
import glob, json, os, sys
n = 0
for path in glob.glob("data/recorded/t1/*.json"):
    for condition in json.load(open(path))["ConfigurationSpace"]["Conditions"]:
        n += 1
        open(os.path.join(sys.argv[1], f"r{n}"), "w").write(condition["Expression"])
for text in ["a // b > 2 ** c", "x in [1, 2, 4] and not y", "(a << 3) % (b - b) == 0",
             "int(x / 3.5) >= -1e308"]:
    n += 1
    open(os.path.join(sys.argv[1], f"r{n}"), "w").write(text)
PY
      ;;
    json_lines)
      # head closes the pipe early: zcat's SIGPIPE is expected
      { zcat data/corpus/progress/cpu-amd-epyc.db.jsonl.gz | head -n 6 > "$dir/export.jsonl"; } || true ;;
    recorded_space)
      cp tests/data/pnpoly_*.json "$dir/"
      gzip -9c tests/data/pnpoly_small.json > "$dir/pnpoly_small.json.gz" ;;
    t1)
      cp data/recorded/t1/*.json "$dir/" ;;
    study)
      cp bench/configs/*.json "$dir/"
      python3 - "$dir" <<'PY'
import json, sys
results = json.load(open("bench/results/quick.json"))
results["runs"] = results["runs"][:2]
results.pop("summaries", None)
json.dump(results, open(sys.argv[1] + "/results.json", "w"))
PY
      ;;
    model_file)
      { zcat data/corpus/cpu-amd-epyc.jsonl.gz | head -n 4 | tail -n 3 |
          awk '{ print > ("'"$dir"'/record-" NR ".json") }'; } || true ;;
    onnx)
      cp tests/data/onnx/*.onnx "$dir/" ;;
    hardware_model)
      # The shipped files, the networks cut to 2 wide (libFuzzer mutates small inputs best) and
      # the GPU table to 3 GPUs; the weights keep their sizes' consistency, not their meaning.
      cp data/models/validity.json data/hardware/blueprint.json "$dir/"
      python3 - "$dir" <<'PY'
import json, os, sys
out = sys.argv[1]
def narrow(path, widths):
    model = json.load(open(path))
    for key, value in widths.items():
        model["network"][key] = 2
    for layer in model["weights"].values():
        if not isinstance(layer, dict):
            continue
        layer["inputs"] = 2 if layer["inputs"] in widths.values() else layer["inputs"]
        layer["outputs"] = 2 if layer["outputs"] in widths.values() else layer["outputs"]
        layer["weight"] = layer["weight"][: layer["inputs"] * layer["outputs"]]
        layer["bias"] = layer["bias"][: layer["outputs"]]
    model.pop("training", None)
    return model
prior = json.load(open("data/models/prior.json"))["network"]
json.dump(narrow("data/models/prior.json", {"hidden": prior["hidden"], "embedding": prior["embedding"]}),
          open(os.path.join(out, "prior-narrow.json"), "w"))
acquisition = json.load(open("data/models/acquisition.json"))["network"]
json.dump(narrow("data/models/acquisition.json", {"hidden": acquisition["hidden"]}),
          open(os.path.join(out, "acquisition-narrow.json"), "w"))
table = json.load(open("data/hardware/gpus.json"))
table["gpus"] = table["gpus"][:3]
json.dump(table, open(os.path.join(out, "gpus-3.json"), "w"))
json.dump({"budget": 64, "initial_size": 8, "pool_size": 512, "kernel": "gemm",
           "device": "A100", "acquisition": "learned"}, open(os.path.join(out, "options.json"), "w"))
PY
      ;;
    worker_protocol)
      python3 - "$dir" <<'PY'
import json, os, sys
out = sys.argv[1]
request = {"artifact": "/tmp/unit.so:kernel", "op": {"op": "dense", "M": 4, "N": 8, "K": 16},
           "warmup": 1, "min_repeats": 3, "min_time_s": 0.05, "max_repeats": 200,
           "flush_bytes": 0, "rtol": 0.001, "seed": 1}
lines = {"request": [request, request],
         "hello": [{"ready": True, "device": "NVIDIA H100 80GB HBM3", "l2_bytes": 52428800}],
         "no-device": [{"ready": False, "error": "no CUDA device", "no_device": True}],
         "answer": [{"status": "ok", "samples": [1e-3, 1.1e-3]},
                    {"status": "runtime-device", "error": "illegal address", "fatal": True}]}
for name, messages in lines.items():
    open(os.path.join(out, name), "w").write("".join(json.dumps(m) + "\n" for m in messages))
PY
      ;;
  esac
  # Hand-made seeds and past findings, kept as regression inputs (fuzz/seeds/<target>/).
  if [[ -d fuzz/seeds/$name ]]; then cp fuzz/seeds/"$name"/* "$dir/"; fi
}

failed=()
rows=()
for name in "${targets[@]}"; do
  make_seeds "$name"
  corpus=$out/corpus/$name
  mkdir -p "$corpus"
  log=$out/logs/$name.log
  status=ok
  started=$SECONDS
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$out/fuzz/${name}_fuzz" -max_total_time="$seconds" -runs="$runs_limit" -max_len=65536 -timeout=10 \
      -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$out/crashes/$name-" \
      "$corpus" "$out/seeds/$name" > "$log" 2>&1 || status=FAILED
  runs=$(awk '/stat::number_of_executed_units/ { print $2 }' "$log" | tail -n 1)
  size=$(find "$corpus" -type f | wc -l)
  elapsed=$((SECONDS - started))
  echo "fuzz.sh: $name: ${runs:-?} inputs in ${elapsed} s, corpus $size files: $status (log $log)"
  rows+=("| $name | ${runs:-?} | $elapsed | $size | $status |")
  if [[ $status != ok ]]; then
    failed+=("$name")
    # The finding itself (sanitizer report, stack, the input's file): CI keeps only this output.
    echo "fuzz.sh: $name: the end of its log:" >&2
    grep -v -E '^#[0-9]+\s' "$log" | tail -n 60 >&2
  fi
done
if [[ -n "$report" ]]; then
  {
    echo "| target | inputs run | seconds | corpus files | result |"
    echo "|---|---:|---:|---:|---|"
    printf '%s\n' "${rows[@]}"
  } > "$report"
fi
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz.sh: findings in ${failed[*]}: see build/fuzz/logs and build/fuzz/crashes" >&2
  exit 1
fi
