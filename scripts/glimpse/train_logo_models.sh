#!/usr/bin/env bash
# Leave-one-GPU-out models: scripts/glimpse/train_held_out_models.sh with HOLD_OUT=gpu (see there).
exec env HOLD_OUT=gpu "$(dirname "$0")/train_held_out_models.sh" "$@"
