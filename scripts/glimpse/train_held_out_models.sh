#!/usr/bin/env bash
# Trains the Glimpse models with GPUs held out: for every held-out unit — one GPU, every GPU of one
# architecture, or every GPU of one vendor (HOLD_OUT) — the prior generator, the validity
# ensemble and the acquisition function are trained on the recorded spaces of all the GPUs outside
# it, so that a benchmark on a held-out GPU's spaces never sees its own data nor, by architecture
# or vendor, its siblings'.
#
# Usage: scripts/glimpse/train_held_out_models.sh OUTDIR [GPU...]
#   OUTDIR/<GPU>/{prior,validity,acquisition}.json are written for every GPU (as the recorded files
#   name it: A100, RTX_2080_Ti, …), so that a study's model paths can name the run's GPU
#   ({device}); with HOLD_OUT=architecture or vendor the models are trained once per unit, in
#   OUTDIR/<unit>/ (e.g. OUTDIR/arch-Ampere, OUTDIR/vendor-amd), and copied to its GPUs' folders.
#   Default GPUs: the ten of the shared datasets; a unit holds out the listed GPUs of it.
# Resumable: a model file that exists is kept; each is written to a temporary name first and
# renamed when its command succeeded, so an interrupted run leaves no half-written model. A file
# of an older format version is kept too: delete it (a study refuses such a file, naming its
# version and the command that remakes it).
#
# Environment:
#   GLIMPSE   the glimpse executable (default: build/default/glimpse)
#   SPACES    recorded spaces (default: ../shared/datasets/benchmark_hub, relative to the
#             repository root; the T4 duplicates of Kernel Tuner caches are skipped by the loader)
#   STAGES    which models to train, in order (default: "prior validity acquisition"); the
#             acquisition needs the prior and validity models of the same GPU
#   ACQ_ARGS  extra flags for `glimpse train acquisition` (default: the ones below)
#   NICE      the nice level of every training command (default: 10)
#   HOLD_OUT  gpu (default), architecture or vendor: what a model never sees, as `glimpse hw show`
#             names a GPU's architecture and vendor
#   CLBLAST   a clblast_best file (../shared/datasets/clblast_best/clblast_best_fp32.json.gz): the
#             prior also learns from CLBlast's best Xgemm configurations (`--clblast`), with the
#             held-out unit's GPUs left out of them too
# Run from anywhere; relative paths are taken from the repository root.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [[ $# -lt 1 ]]; then
  echo "usage: $0 OUTDIR [GPU...]" >&2
  exit 2
fi
outdir="$1"
shift
gpus=("$@")
if [[ ${#gpus[@]} -eq 0 ]]; then
  gpus=(A100 A4000 A6000 MI250X W6600 W7800 RTX_2080_Ti RTX_3090 RTX_Titan RTX_3060_laptop)
fi

glimpse="${GLIMPSE:-build/default/glimpse}"
spaces="${SPACES:-../shared/datasets/benchmark_hub}"
stages="${STAGES:-prior validity acquisition}"
nice_level="${NICE:-10}"

# The shipped models' settings (data/models/README.md): the prior's defaults; the validity
# ensemble's "derived + abstain, weight 4" (bench/results/validity_ensemble.md), which rejects
# failures without ever rejecting the optimum of a held-out GPU.
prior_args=(--top-fraction 0.02 --epochs 600 --lr 0.003 --weight-decay 0.0001 --hidden 32
            --embedding 16 --seed 0)
validity_args=(--tau 0.333 --derived-features --abstain-uninformative
               --false-rejection-weight 4 --ridge-lambda 1)
# Acquisition training (include/glimpse/glimpse_tuner.h, AcquisitionTrainingOptions defaults).
read -r -a acquisition_args <<< "${ACQ_ARGS:---iterations 150 --episodes 12 --episodes-per-space 4 \
--episode-budget 64 --batch-size 16 --hidden 32 --lr 0.003 --entropy-bonus 0.01 --seed 0}"

if [[ ! -x "$glimpse" ]]; then
  echo "$0: no glimpse executable at '$glimpse' (set GLIMPSE or build the target 'glimpse')" >&2
  exit 2
fi
hold_out="${HOLD_OUT:-gpu}"
case "$hold_out" in
  gpu | architecture | vendor) ;;
  *)
    echo "$0: HOLD_OUT='$hold_out'; known: gpu, architecture, vendor" >&2
    exit 2 ;;
esac

# field_of GPU: the GPU's architecture or vendor (HOLD_OUT), as the GPU table names it.
field_of() {
  "$glimpse" hw show "$1" --json | python3 -c \
    "import json, sys; print(json.load(sys.stdin)['$hold_out'])" || {
    echo "$0: '$1' is not in the GPU table (glimpse hw show), so its $hold_out is unknown" >&2
    exit 1
  }
}

# unit_of FIELD_OR_GPU: the folder of a held-out unit.
unit_of() {
  case "$hold_out" in
    gpu) echo "$1" ;;
    architecture) echo "arch-${1// /_}" ;;
    vendor) echo "vendor-$1" ;;
  esac
}

# train NAME GPU_DIR COMMAND...: runs COMMAND with --out GPU_DIR/NAME.json.tmp, renames on success.
train() {
  local name="$1" dir="$2"
  shift 2
  local out="$dir/$name.json"
  if [[ -s "$out" ]]; then
    echo "  $name: $out exists, kept"
    return 0
  fi
  local tmp="$dir/$name.json.tmp"
  local log="$dir/$name.log"
  local start=$SECONDS
  rm -f "$tmp"
  if ! nice -n "$nice_level" "$@" --out "$tmp" > "$log" 2>&1; then
    echo "  $name: FAILED after $((SECONDS - start)) s, see $log" >&2
    rm -f "$tmp"
    return 1
  fi
  mv -f "$tmp" "$out"
  echo "  $name: $out ($((SECONDS - start)) s; log $log)"
}

# The units in the order of their first GPU, and each unit's GPUs.
declare -A members fields
units=()
for gpu in "${gpus[@]}"; do
  field="$gpu"
  [[ "$hold_out" != gpu ]] && field=$(field_of "$gpu")
  unit=$(unit_of "$field")
  if [[ -z "${members[$unit]+set}" ]]; then
    units+=("$unit")
    members[$unit]=""
    fields[$unit]="$field"
  fi
  members[$unit]+=" $gpu"
done

total_start=$SECONDS
for unit in "${units[@]}"; do
  dir="$outdir/$unit"
  mkdir -p "$dir"
  read -r -a held <<< "${members[$unit]}"
  exclude=()
  for gpu in "${held[@]}"; do exclude+=(--exclude-device "$gpu"); done
  # The prior also leaves out the whole unit from the CLBlast records (which hold other GPUs).
  prior_extra=()
  case "$hold_out" in
    architecture) prior_extra+=(--exclude-architecture "${fields[$unit]}") ;;
    vendor) prior_extra+=(--exclude-vendor "${fields[$unit]}") ;;
  esac
  [[ -n "${CLBLAST:-}" ]] && prior_extra+=(--clblast "$CLBLAST")
  echo "held out: $unit (${held[*]})"
  for stage in $stages; do
    case "$stage" in
      prior)
        train prior "$dir" "$glimpse" train prior --spaces "$spaces" "${exclude[@]}" \
          "${prior_extra[@]}" "${prior_args[@]}" ;;
      validity)
        train validity "$dir" "$glimpse" train validity --spaces "$spaces" \
          "${exclude[@]}" "${validity_args[@]}" ;;
      acquisition)
        for needed in prior validity; do
          if [[ ! -s "$dir/$needed.json" ]]; then
            echo "$0: $dir/$needed.json is missing; train it first (STAGES=$needed)" >&2
            exit 1
          fi
        done
        train acquisition "$dir" "$glimpse" train acquisition --spaces "$spaces" \
          "${exclude[@]}" --prior "$dir/prior.json" --validity "$dir/validity.json" \
          "${acquisition_args[@]}" ;;
      *)
        echo "$0: unknown stage '$stage' in STAGES; known: prior validity acquisition" >&2
        exit 2 ;;
    esac
  done
  # Every held-out GPU's folder gets the unit's models (a GPU's own unit is that folder).
  for gpu in "${held[@]}"; do
    [[ "$outdir/$gpu" == "$dir" ]] && continue
    mkdir -p "$outdir/$gpu"
    for stage in $stages; do
      [[ -s "$dir/$stage.json" ]] && cp -f "$dir/$stage.json" "$outdir/$gpu/$stage.json"
    done
  done
done
echo "done in $((SECONDS - total_start)) s"
