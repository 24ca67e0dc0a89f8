// What the paths of `glimpse tune` that generate kernels (--target cpu in tune_cpu.cc, --target
// cuda in tune_cuda.cc) share: choosing the operators, their budgets, the machine flags and the
// directory compiled kernels go to. Defined in tune_cpu.cc.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/model_graph.h"
#include "glimpse/model_zoo.h"
#include "glimpse/tune_tasks.h"
#include "tune_flags.h"

namespace glimpse::cli {

// The zoo model's layers (--model), or one layer per --op ("op1", "op2", …); sets `model` to the
// canonical zoo name for a zoo model. Throws Error naming the flag (both or neither given, an
// unknown model, an operator that does not parse).
// `graph` (may be null) receives the model's graph when it has one (a CNN of the zoo, an ONNX
// file), a zoo CNN's with its weights only when `weights`.
std::vector<ModelLayer> SelectLayers(const TuneFlags& flags, std::string& model,
                                     std::optional<ModelGraph>* graph = nullptr,
                                     bool weights = false);

// --compile DIR's needs (when given): a model with a graph (`graph`, from SelectLayers), the
// run's database and tables, not JSON. Error naming what to drop.
void CheckCompileFlags(const TuneFlags& flags, const std::optional<ModelGraph>& graph);

// --threads, --run-timeout, --build-timeout and --build-jobs in range; Error naming the flag.
void CheckMachineFlags(const TuneFlags& flags);

// Measurement budget per task: --budget for each, or --global-budget split over the tasks that
// can be tuned (SplitGlobalBudget); 0 where only --time-budget limits a task. Sets `kind`
// ("per-task", "global", "time") and `total` for the report.
std::vector<int64_t> Budgets(const TuneFlags& flags, const std::vector<TaskOutcome>& tasks,
                             std::string& kind, int64_t& total);

// Seconds a candidate may take (check and timing): --run-timeout, or by default its default plus
// 4 s per GFLOP of the operator, since a fresh worker computes the reference output on the CPU
// within the time of its first candidate.
double RunTimeout(const TuneFlags& flags, const ModelTask& task);

// The part of `glimpse tune --target cpu|cuda` after every check: the kernel directory and the
// database are made, the report's tasks (PlanTasks) are tuned with their `budgets` (TuneTasks)
// and the report is printed (a table, or JSON with --json).
// `pretrained` gives each task's pretrained cost model (TuneTasksOptions::pretrained_model);
// `amend_json`, when set, adds to the JSON report what only the caller knows once the tasks ran.
void TuneTasksAndReport(const TuneFlags& flags, const Target& target, TasksReport& report,
                        const std::vector<int64_t>& budgets, const TuneOptions& options,
                        const Json& tuner_options,
                        decltype(TuneTasksOptions::pretrained_model) pretrained = {},
                        const std::function<void(Json&)>& amend_json = {});

// The index of the first task that can be tuned (PlanTasks guarantees one).
size_t FirstTunable(const std::vector<TaskOutcome>& tasks);

// The directory compiled kernels go to: --kernel-dir (created, kept), or a temporary one removed
// at the end, so that a long run does not leave thousands of files behind.
class KernelDir {
 public:
  explicit KernelDir(const std::string& keep);  // Error naming --kernel-dir when it cannot be made
  ~KernelDir();
  KernelDir(const KernelDir&) = delete;
  KernelDir& operator=(const KernelDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool remove_ = false;
};

}  // namespace glimpse::cli
