#!/usr/bin/env bash
# Trains the shipped Glimpse models, data/models/{prior,validity,acquisition}.json, on every
# recorded space of the shared datasets (data/models/README.md gives each command, its training
# time and the machine). The acquisition function is trained with the freshly written prior and
# validity models, so run the three in order.
#
# Usage: scripts/glimpse/train_shipped_models.sh [MODEL...]
#   MODEL: prior, validity, acquisition (default: all three, in that order). Unlike the
#   leave-one-GPU-out script this one always retrains: the shipped files are replaced (each is
#   written whole and renamed into place by glimpse, so an interrupted run keeps the old file).
#
# Environment:
#   GLIMPSE   the glimpse executable (default: build/default/glimpse)
#   SPACES    recorded spaces (default: ../shared/datasets/benchmark_hub, from the repository
#             root; the T4 duplicates of Kernel Tuner caches are skipped by the loader)
#   ACQ_ARGS  flags for `glimpse train acquisition` (default: the ones below)
#   NICE      the nice level of every training command (default: 10)
set -euo pipefail
cd "$(dirname "$0")/../.."

glimpse="${GLIMPSE:-build/default/glimpse}"
spaces="${SPACES:-../shared/datasets/benchmark_hub}"
nice_level="${NICE:-10}"
models=("$@")
if [[ ${#models[@]} -eq 0 ]]; then
  models=(prior validity acquisition)
fi
read -r -a acquisition_args <<< "${ACQ_ARGS:---iterations 150 --episodes 12 --episodes-per-space 4 \
--episode-budget 64 --batch-size 16 --hidden 32 --lr 0.003 --entropy-bonus 0.01 --seed 0}"

if [[ ! -x "$glimpse" ]]; then
  echo "$0: no glimpse executable at '$glimpse' (set GLIMPSE or build the target 'glimpse')" >&2
  exit 2
fi

run() {
  local name="$1"
  shift
  local start=$SECONDS
  echo "== $name: $*"
  nice -n "$nice_level" "$@"
  echo "== $name: $((SECONDS - start)) s"
}

for model in "${models[@]}"; do
  case "$model" in
    prior)
      # The defaults, spelled out (data/models/README.md, "prior.json").
      run prior "$glimpse" train prior --spaces "$spaces" --top-fraction 0.02 --epochs 600 \
        --lr 0.003 --weight-decay 0.0001 --hidden 32 --embedding 16 --seed 0 \
        --out data/models/prior.json ;;
    validity)
      # "derived + abstain, weight 4" of bench/results/validity_ensemble.md: the variant that
      # rejects failures of unseen GPUs without ever rejecting their optimum.
      run validity "$glimpse" train validity --spaces "$spaces" --tau 0.333 \
        --derived-features --abstain-uninformative --false-rejection-weight 4 \
        --ridge-lambda 1 --out data/models/validity.json ;;
    acquisition)
      run acquisition "$glimpse" train acquisition --spaces "$spaces" \
        --prior data/models/prior.json --validity data/models/validity.json \
        "${acquisition_args[@]}" --out data/models/acquisition.json ;;
    *)
      echo "$0: unknown model '$model'; known: prior validity acquisition" >&2
      exit 2 ;;
  esac
done
