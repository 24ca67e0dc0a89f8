# Sourced by the blocked runs' scripts (peel/retune.sh, resnet18_256/run.sh, continue.sh,
# resnet18_1000/hw_budget.sh): the model's task list with activations blocked, written to DIR, and
# the tuner's --op arguments.
#   model_ops MODEL DIR   sets list (the model's tasks file), tasks (its blocked form) and ops
model_ops() {
  local model=$1 dir=$2 op
  list=bench/configs/${model}_cpu_tasks.txt
  [ "$model" = resnet18 ] && list=bench/configs/resnet18_fused_cpu_tasks.txt
  tasks="$dir/${model}_blocked_tasks.txt"
  python3 bench/results/cpu_models_64/blocked/blocked_tasks.py "$list" > "$tasks"
  ops=()
  while read -r op; do ops+=(--op "$op"); done < <(grep -v '^#' "$tasks" | sed 's/ *#.*//')
}
