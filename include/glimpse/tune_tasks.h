// glimpse/tune_tasks.h — multi-task tuning, for every target (glimpse/target.h): the distinct
// operators of a model (or the given ones) as tasks, each tuned with its own budget, a fresh
// strategy and a runner of its own, into one database; and the report of the run, the same for
// every target.
//
//   std::vector<TaskOutcome> tasks = PlanTasks(target, layers);   // Error: nothing can be tuned
//   (budgets for the tunable tasks: SplitGlobalBudget, or one each)
//   TuneTasks(target, tasks, options, &database);                 // fills each outcome
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/cost_model.h"
#include "glimpse/database.h"
#include "glimpse/json.h"
#include "glimpse/model_zoo.h"
#include "glimpse/target.h"
#include "glimpse/tuning_loop.h"

namespace glimpse {

// One task of the run and what became of it.
struct TaskOutcome {
  ModelTask task;                      // operator, weight, layer names
  std::string workload_key;            // empty when no Task could be made
  std::string error;                   // set when the task cannot be tuned
  bool no_template = false;            // ... because the target has no template for it
  int64_t budget = 0;                  // measurement budget (0: only the time budget limits it)
  std::optional<TuneSummary> summary;  // set once tuned
  Json best_config;                    // by knob name; null when nothing succeeded
  bool build_only = false;             // candidates were built and checked, never run
  // What the task took from its epilogue siblings (TuneTasksOptions::sibling_seeds and
  // sibling_history): the tasks (0-based indices into the run's tasks), how many of their
  // configurations were measured first, and how many records the strategy got as history.
  std::vector<size_t> siblings;
  int64_t sibling_seeds = 0;
  // Template seeds (TuneTasksOptions::template_seeds) measured first, before the siblings'.
  int64_t template_seeds = 0;
  int64_t history_records = 0;
  // The sibling sweep (TuneTasksOptions::sibling_sweep): the siblings whose configurations were
  // measured, how many were new to this task, and its best time before the sweep and the recheck
  // (seconds).
  std::vector<size_t> sweep_from;
  int64_t sweep_measured = 0;
  double best_before_sweep_s = 0;
  // The recheck (TuneTasksOptions::recheck): configurations this task measured again.
  int64_t rechecked = 0;

  bool Tunable() const { return error.empty(); }
  // "tuned", "all-failed" (measured, nothing ok), "no-template" (see `error`) or, for a
  // build-only run, "built" (some candidate built ok).
  std::string Status() const;
  double BestTime() const;  // seconds; +inf unless tuned
};

// The tasks of `layers` on `target`: one per distinct operator (ExtractTasks), with its workload
// key, or the reason it cannot be tuned there (no template, more memory than the device has, a
// space without a valid configuration). Throws Error when no operator can be tuned ("no operator
// can be tuned on cuda: <op>: <why>").
std::vector<TaskOutcome> PlanTasks(const Target& target, const std::vector<ModelLayer>& layers);
// Throws Error when `task`'s space (on `target`, named in the message) has no valid
// configuration: exactly for spaces of up to 2^22 configurations, after 10^6 uniform draws for
// larger ones.
void RequireValidConfiguration(const Task& task, const std::string& target);

struct TuneTasksOptions {
  std::string tuner = "random";  // registry name (MakeTuner)
  Json tuner_options = Json::object();
  TuneOptions tune;  // shared by the tasks; max_measurements: TaskOutcome::budget
  // Seconds a candidate of `task` may take (its runner's timeout).
  std::function<double(const ModelTask& task)> run_timeout = [](const ModelTask&) { return 10.0; };
  std::string work_dir;           // kernels compile here; validity checks in work_dir/validity-<i>
  std::ostream* log = nullptr;    // a line per task ("task 3/12: … (weight 2, budget 50)")
  std::ostream* notes = nullptr;  // the device description's notes; null: std::cerr
  // A pretrained cost model of each task's space (the learned performance model), for a strategy
  // that takes one (TunerTraits::takes_pretrained_model); unset, or null for a task: none. The
  // model may keep a reference to `tuned.space`, which outlives it.
  std::function<std::shared_ptr<const CostModel>(const ModelTask& task, const Task& tuned)>
      pretrained_model;
  // Epilogue siblings: earlier tasks of the run whose operator is the task's but for bias, ReLU,
  // ReLU6 or a residual add (OperatorWithoutEpilogue) run the same loops, so their fast schedules
  // are the task's. Their records on this device (those that fit the task's space; a database is
  // needed) are used twice:
  //   - sibling_seeds: their fastest distinct configurations are measured first, whatever the
  //     strategy (TuneOptions::seed_configs), so the task starts from where its sibling ended;
  //   - sibling_history: a strategy that learns from history (TunerTraits::learns_from_history)
  //     gets them all as TargetKnowledge::history, under its own rules (xgb, as AutoTVM, ignores
  //     a history of fewer than min_seed_records).
  int sibling_seeds = 8;
  bool sibling_history = true;
  // The target's template seeds of a task (glimpse/cpu_seeds.h: the configurations its
  // template's author would try first on this machine), measured first, whatever the strategy,
  // before the siblings' seeds (a configuration in both is measured once); unset: none.
  std::function<std::vector<Config>(const Task& tuned)> template_seeds;
  // The seeds flow forward only: the first task of a group never sees what its siblings found
  // after it. Once every task is tuned, each task with epilogue siblings (earlier or later)
  // measures the `sibling_sweep` fastest configurations of each that it has not measured itself
  // (with a recheck, those it has measured too: see `recheck`), a handful of measurements beyond
  // its budget, reported as its own line and in the outcome; 0: no sweep.
  int sibling_sweep = 2;
  // Once every task is tuned, each task measures again its `recheck` fastest distinct
  // configurations, in one batch with the sweep's (those it had measured already included): a
  // search's figures were taken minutes apart on a machine whose speed drifts (on the guest of
  // bench/results/cpu_models_64.md, ResNet-18's last residual 3×3 measured its sibling's
  // configurations at 1.8× the sibling's time twenty seconds later, and kept one 1.5× slower than
  // theirs), while one batch compares them in one sitting. A
  // configuration's time stays its fastest record (Database::Best): interference adds time, so
  // a second measurement can only bring a figure nearer the kernel's own. A task without records
  // since its last recheck (the same command run again) is not rechecked. The measurements are
  // beyond the budget, and count towards it when the run is resumed, like the sweep's. 0 (the
  // default): none — on a quiet machine they are measurements spent on figures already right.
  int recheck = 0;
};

// The records of `tasks[0..before)` that are epilogue siblings of `tasks[before]`, on `device`, as
// configurations of `space` (those that do not fit it are left out); `from` gets the tasks they
// came from.
TransferHistory SiblingHistory(const std::vector<TaskOutcome>& tasks, size_t before,
                               const ConfigSpace& space, const std::string& device,
                               const Database& database, std::vector<size_t>& from);

// The `per_sibling` fastest distinct ok configurations of every epilogue sibling of `tasks[task]`
// (earlier or later in the run) on `device`, as configurations of `space`; `from` gets the
// siblings that gave any.
std::vector<Config> SiblingSweepConfigs(const std::vector<TaskOutcome>& tasks, size_t task,
                                        const ConfigSpace& space, const std::string& device,
                                        const Database& database, size_t per_sibling,
                                        std::vector<size_t>& from);

// Tunes the tunable tasks one after the other with a fresh strategy each (MakeTuner, given what
// the target knows: its device description for a strategy that reads one, a compile-only
// validity checker with option validity_init), each as its own workload in `database` (may be
// null), and fills their outcomes.
void TuneTasks(const Target& target, std::vector<TaskOutcome>& tasks,
               const TuneTasksOptions& options, Database* database);

// The run, for a person (the CLI's table) or a script (TasksReportToJson).
struct TasksReport {
  std::string target;       // "cpu", "cuda"
  std::string arch;         // cuda: the architecture kernels were compiled for ("sm_90")
  bool build_only = false;  // nothing ran, there are no times
  std::string model;        // canonical zoo name; empty for a list of operators
  int64_t layers = 0;       // layers the tasks stand for (Σ weights)
  std::string device;
  std::string tuner;
  uint64_t seed = 0;
  std::string budget_kind;  // "per-task", "global" or "time"
  int64_t budget = 0;       // per task, or shared
  int64_t batch = 0;        // measurements per round (0: not said)
  // The strategy's options as the run used them: --tuner-option and what flags such as
  // --hardware-budget add (its plan_size).
  Json tuner_options = Json::object();
  std::string database;  // empty without one
  std::vector<TaskOutcome> tasks;
};

// Σ weight × best time over the tuned tasks, and how many tasks that covers.
struct LatencyEstimate {
  double seconds = 0;
  size_t tasks = 0;
};
LatencyEstimate EstimateLatency(const TasksReport& report);

Json TasksReportToJson(const TasksReport& report);

}  // namespace glimpse
