// PlanTasks and TuneTasks (glimpse/tune_tasks.h): multi-task tuning on any target.
#include "glimpse/tune_tasks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

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

namespace {

// The `k` fastest configurations that ran ok, each once.
std::vector<Config> FastestDistinct(const TransferHistory& records, size_t k) {
  std::vector<const std::pair<Config, MeasureResult>*> ok;
  for (const auto& record : records) {
    if (record.second.ok() && std::isfinite(record.second.time_s)) ok.push_back(&record);
  }
  std::stable_sort(ok.begin(), ok.end(), [](const auto* a, const auto* b) {
    return a->second.time_s < b->second.time_s;
  });
  std::vector<Config> fastest;
  std::set<Config> seen;
  for (const auto* record : ok) {
    if (fastest.size() >= k) break;
    if (seen.insert(record->first).second) fastest.push_back(record->first);
  }
  return fastest;
}

// "; epilogue sibling task 9: its 8 fastest measured first, 64 records as history", or nothing.
std::string SiblingsNote(const TaskOutcome& outcome) {
  if (outcome.siblings.empty() || (outcome.sibling_seeds == 0 && outcome.history_records == 0)) {
    return "";
  }
  std::string tasks;
  for (size_t j : outcome.siblings) tasks += (tasks.empty() ? "" : ", ") + std::to_string(j + 1);
  std::string note = fmt::format(
      "; epilogue sibling{} {}:", outcome.siblings.size() > 1 ? "s, tasks" : " task", tasks);
  if (outcome.sibling_seeds > 0) {
    note += fmt::format(" {} fastest measured first", outcome.sibling_seeds);
  }
  if (outcome.history_records > 0) {
    note += fmt::format("{} {} records as history", outcome.sibling_seeds > 0 ? "," : "",
                        outcome.history_records);
  }
  return note;
}

}  // namespace

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
    const bool history_wanted = options.sibling_history && traits.learns_from_history;
    if ((options.sibling_seeds > 0 || history_wanted) && database != nullptr) {
      TransferHistory records =
          SiblingHistory(tasks, i, task.space, task.device, *database, outcome.siblings);
      if (options.sibling_seeds > 0) {
        task_options.seed_configs =
            FastestDistinct(records, static_cast<size_t>(options.sibling_seeds));
        outcome.sibling_seeds = static_cast<int64_t>(task_options.seed_configs.size());
      }
      if (history_wanted) {
        outcome.history_records = static_cast<int64_t>(records.size());
        task_options.knowledge.history = std::move(records);
      }
    }
    if (options.log != nullptr) {
      *options.log << fmt::format("{} (weight {}", where, outcome.task.weight)
                   << (outcome.budget > 0 ? fmt::format(", budget {}", outcome.budget) : "")
                   << SiblingsNote(outcome) << ")\n";
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
