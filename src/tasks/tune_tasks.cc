// PlanTasks and TuneTasks (glimpse/tune_tasks.h): multi-task tuning on any target.
#include "glimpse/tune_tasks.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "glimpse/error.h"
#include "glimpse/tuner.h"

namespace glimpse {

std::vector<TaskOutcome> PlanTasks(const Target& target, const std::vector<ModelLayer>& layers) {
  std::vector<TaskOutcome> tasks;
  for (ModelTask& task : ExtractTasks(layers)) {
    TaskOutcome outcome;
    outcome.task = std::move(task);
    outcome.build_only = !target.Measures();
    try {
      outcome.workload_key = target.MakeTask(outcome.task.op).WorkloadKey();
    } catch (const Error& error) {
      outcome.error = error.what();
    }
    tasks.push_back(std::move(outcome));
  }
  for (const TaskOutcome& outcome : tasks) {
    if (outcome.Tunable()) return tasks;
  }
  if (tasks.empty()) throw Error("no operator to tune");
  throw Error(fmt::format("no operator can be tuned on {}: {}: {}", target.Name(),
                          tasks.front().task.op_text, tasks.front().error));
}

TransferHistory SiblingHistory(const std::vector<TaskOutcome>& tasks, size_t before,
                               const ConfigSpace& space, const std::string& device,
                               const Database& database, std::vector<size_t>& from) {
  TransferHistory history;
  from.clear();
  const std::string loops = OperatorToString(OperatorWithoutEpilogue(tasks.at(before).task.op));
  for (size_t j = 0; j < before; ++j) {
    const TaskOutcome& sibling = tasks[j];
    if (!sibling.Tunable() || sibling.workload_key == tasks[before].workload_key ||
        OperatorToString(OperatorWithoutEpilogue(sibling.task.op)) != loops) {
      continue;
    }
    size_t taken = 0;
    for (const TuningRecord& record : database.Records(sibling.workload_key, device)) {
      try {
        Config config = space.ConfigFromJson(record.config);
        if (!space.IsValid(config)) continue;
        history.emplace_back(std::move(config), ResultFromRecord(record));
        ++taken;
      } catch (const Error&) {
        // A knob the sibling's space has and this one lacks: not a schedule of this task.
      }
    }
    if (taken > 0) from.push_back(j);
  }
  return history;
}

void TuneTasks(const Target& target, std::vector<TaskOutcome>& tasks,
               const TuneTasksOptions& options, Database* database) {
  const TunerTraits traits = TraitsOfTuner(options.tuner);
  const bool validity_init = options.tuner_options.value("validity_init", false) == true;
  std::shared_ptr<const GpuSpec> device;
  if (traits.reads_device) {
    std::vector<std::string> notes;
    device = target.DescribeDevice(notes);
    std::ostream& out = options.notes != nullptr ? *options.notes : std::cerr;
    for (const std::string& note : notes) out << "glimpse: " << note << "\n";
  }
  std::unique_ptr<Builder> builder = target.MakeBuilder(options.work_dir);

  for (size_t i = 0; i < tasks.size(); ++i) {
    TaskOutcome& outcome = tasks[i];
    const std::string where =
        fmt::format("task {}/{}: {}", i + 1, tasks.size(), outcome.task.op_text);
    if (!outcome.Tunable()) {
      if (options.log != nullptr) *options.log << where << ": skipped, " << outcome.error << "\n";
      continue;
    }
    const Task task = target.MakeTask(outcome.task.op);
    TuneOptions task_options = options.tune;
    if (options.sibling_history && traits.learns_from_history && database != nullptr) {
      task_options.knowledge.history =
          SiblingHistory(tasks, i, task.space, task.device, *database, outcome.history_from);
      outcome.history_records = static_cast<int64_t>(task_options.knowledge.history.size());
    }
    if (options.log != nullptr) {
      std::string from;
      for (size_t j : outcome.history_from)
        from += (from.empty() ? "" : ", ") + std::to_string(j + 1);
      *options.log << fmt::format("{} (weight {}", where, outcome.task.weight)
                   << (outcome.budget > 0 ? fmt::format(", budget {}", outcome.budget) : "")
                   << (outcome.history_records > 0
                           ? fmt::format("; history: {} records of its epilogue sibling{} {}",
                                         outcome.history_records,
                                         outcome.history_from.size() > 1 ? "s, tasks" : ", task",
                                         from)
                           : "")
                   << ")\n";
    }
    task_options.max_measurements = outcome.budget;
    task_options.knowledge.gpu = device;
    if (validity_init) {
      // Each checker compiles into its own directory: builders number their units from 0, and
      // two must never write the same file.
      task_options.knowledge.validity_checker = target.MakeValidityChecker(
          task, (std::filesystem::path(options.work_dir) / fmt::format("validity-{}", i)).string());
    }
    if (traits.takes_pretrained_model && options.pretrained_model) {
      task_options.knowledge.pretrained_model = options.pretrained_model(outcome.task, task);
    }
    std::unique_ptr<Tuner> tuner = MakeTuner(options.tuner, options.tuner_options);
    // A runner per task: its timeout depends on the operator, and its worker holds one
    // operator's inputs and reference at a time anyway.
    std::unique_ptr<Runner> runner = target.MakeRunner(task, options.run_timeout(outcome.task));
    TuneSummary summary = Tune(task, *tuner, *builder, *runner, database, task_options);
    if (summary.best_config) outcome.best_config = task.space.ConfigToJson(*summary.best_config);
    outcome.summary = std::move(summary);
  }
}

}  // namespace glimpse
