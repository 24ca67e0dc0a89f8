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

namespace {

std::string RestrictionsText(const ConfigSpace& space) {
  std::string text;
  for (const std::string& r : space.restrictions()) text += (text.empty() ? "'" : ", '") + r + "'";
  if (text.empty()) return "none, so a knob has no value";
  return text.size() > 400 ? text.substr(0, 400) + "…" : text;
}

}  // namespace

void RequireValidConfiguration(const Task& task, const std::string& target) {
  // Exact for the spaces small enough to enumerate (SampleValid lists them); for larger ones,
  // 10^6 uniform draws that all break a restriction mean the tuners could not start either.
  constexpr uint64_t kDraws = 1'000'000;
  Rng rng(1);
  if (task.space.SampleValid(rng, kDraws)) return;
  const bool exact = task.space.RawSize() <= (uint64_t{1} << 22);
  throw Error(fmt::format(
      "its {} space has no valid configuration ({}; its restrictions: {}): nothing can be tuned",
      target,
      exact ? fmt::format("all {} configurations break a restriction", task.space.RawSize())
            : fmt::format("none in {} random draws of its 10^{:.1f} configurations", kDraws,
                          task.space.RawSizeLog10()),
      RestrictionsText(task.space)));
}

std::vector<TaskOutcome> PlanTasks(const Target& target, const std::vector<ModelLayer>& layers) {
  std::vector<TaskOutcome> tasks;
  for (ModelTask& task : ExtractTasks(layers)) {
    TaskOutcome outcome;
    outcome.task = std::move(task);
    outcome.build_only = !target.Measures();
    try {
      const Task made = target.MakeTask(outcome.task.op);
      RequireValidConfiguration(made, target.Name());
      outcome.workload_key = made.WorkloadKey();
    } catch (const NoTemplateError& error) {
      outcome.error = error.what();
      outcome.no_template = true;
    } catch (const Error& error) {
      outcome.error = error.what();
    }
    tasks.push_back(std::move(outcome));
  }
  for (const TaskOutcome& outcome : tasks) {
    if (outcome.Tunable()) return tasks;
  }
  if (tasks.empty()) throw Error("no operator to tune");
  // The memory checks' errors start with the operator already.
  const TaskOutcome& first = tasks.front();
  const bool named = first.error.rfind(first.task.op_text + ": ", 0) == 0;
  throw Error(fmt::format("no operator can be tuned on {}: {}", target.Name(),
                          named ? first.error : first.task.op_text + ": " + first.error));
}

namespace {

// Tasks `a` and `b` run the same loops: their operators differ only in the epilogue (bias, ReLU,
// ReLU6, a residual add) — different workloads, the same schedules.
bool EpilogueSiblings(const TaskOutcome& a, const TaskOutcome& b) {
  return a.Tunable() && b.Tunable() && a.workload_key != b.workload_key &&
         OperatorToString(OperatorWithoutEpilogue(a.task.op)) ==
             OperatorToString(OperatorWithoutEpilogue(b.task.op));
}

// The records of `sibling` on `device` that are configurations of `space`.
TransferHistory RecordsInSpace(const TaskOutcome& sibling, const ConfigSpace& space,
                               const std::string& device, const Database& database) {
  TransferHistory history;
  for (const TuningRecord& record : database.Records(sibling.workload_key, device)) {
    try {
      Config config = space.ConfigFromJson(record.config);
      if (!space.IsValid(config)) continue;
      history.emplace_back(std::move(config), ResultFromRecord(record));
    } catch (const Error&) {
      // A knob the sibling's space has and this one lacks: not a schedule of this task.
    }
  }
  return history;
}

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

}  // namespace

TransferHistory SiblingHistory(const std::vector<TaskOutcome>& tasks, size_t before,
                               const ConfigSpace& space, const std::string& device,
                               const Database& database, std::vector<size_t>& from) {
  TransferHistory history;
  from.clear();
  for (size_t j = 0; j < before; ++j) {
    if (!EpilogueSiblings(tasks[j], tasks.at(before))) continue;
    TransferHistory records = RecordsInSpace(tasks[j], space, device, database);
    if (records.empty()) continue;
    from.push_back(j);
    for (auto& record : records) history.push_back(std::move(record));
  }
  return history;
}

std::vector<Config> SiblingSweepConfigs(const std::vector<TaskOutcome>& tasks, size_t task,
                                        const ConfigSpace& space, const std::string& device,
                                        const Database& database, size_t per_sibling,
                                        std::vector<size_t>& from) {
  std::vector<Config> configs;
  std::set<Config> seen;
  from.clear();
  for (size_t j = 0; j < tasks.size(); ++j) {
    if (j == task || !EpilogueSiblings(tasks[j], tasks.at(task))) continue;
    bool gave = false;
    for (Config& config :
         FastestDistinct(RecordsInSpace(tasks[j], space, device, database), per_sibling)) {
      if (seen.insert(config).second) {
        configs.push_back(std::move(config));
        gave = true;
      }
    }
    if (gave) from.push_back(j);
  }
  return configs;
}

namespace {

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

// "µs" figures for the log lines.
std::string Micros(double seconds) {
  return std::isfinite(seconds) ? fmt::format("{:.4g} µs", seconds * 1e6) : "none";
}

// Folds the final pass's summary of the task (its records: everything before the pass resumed,
// and the pass's own) into the outcome of the task's tuning.
void AddFinalPass(TaskOutcome& outcome, const TuneSummary& pass, const ConfigSpace& space) {
  TuneSummary& s = *outcome.summary;
  outcome.best_before_sweep_s = s.best_time_s;
  s.measurements = pass.measurements;  // the counts of all the task's records, new ones included
  s.failed = pass.failed;
  s.by_status = pass.by_status;
  if (pass.best_config && pass.best_time_s < s.best_time_s) {
    s.best_time_s = pass.best_time_s;
    s.best_config = pass.best_config;
    outcome.best_config = space.ConfigToJson(*pass.best_config);
  }
  s.tuning_time_s += pass.tuning_time_s;
  s.elapsed_s += pass.elapsed_s;
  s.tuner_s += pass.tuner_s;
  s.batches.build_s += pass.batches.build_s;
  s.batches.build_waited_s += pass.batches.build_waited_s;
  s.batches.run_s += pass.batches.run_s;
  for (size_t k = static_cast<size_t>(pass.resumed); k < pass.trajectory.size(); ++k) {
    s.trajectory.push_back(pass.trajectory[k]);
  }
}

// "task 3" or "tasks 3, 5" (1-based) for the log lines.
std::string TaskNumbers(const std::vector<size_t>& tasks) {
  std::string names;
  for (size_t j : tasks) names += (names.empty() ? "" : ", ") + std::to_string(j + 1);
  return (tasks.size() > 1 ? "tasks " : "task ") + names;
}

// What the final pass of a task measures: its own fastest (TuneTasksOptions::recheck) and its
// siblings' (sibling_sweep), each once; `fresh` counts those the task had never measured.
struct FinalPassPlan {
  std::vector<Config> configs;
  std::vector<size_t> from;  // the siblings that offered any
  int64_t fresh = 0;
  bool recheck = false;  // measure again what the task has measured
};

// A task is rechecked when it has records newer than its last recheck: the same command run
// again on a finished task measures nothing.
bool RecheckDue(const TaskOutcome& outcome, const std::string& device, const Database& database) {
  const std::vector<TuningRecord> records = database.Records(outcome.workload_key, device);
  return !records.empty() && records.back().strategy != "recheck";
}

FinalPassPlan PlanFinalPass(const std::vector<TaskOutcome>& tasks, size_t i,
                            const ConfigSpace& space, const std::string& device,
                            const TuneTasksOptions& options, const Database& database) {
  FinalPassPlan plan;
  plan.recheck = options.recheck > 0 && RecheckDue(tasks[i], device, database);
  const TransferHistory own = RecordsInSpace(tasks[i], space, device, database);
  std::set<Config> measured, planned;
  for (const auto& record : own) measured.insert(record.first);
  if (plan.recheck) {
    for (Config& config : FastestDistinct(own, static_cast<size_t>(options.recheck))) {
      planned.insert(config);
      plan.configs.push_back(std::move(config));
    }
  }
  if (options.sibling_sweep > 0) {
    for (Config& config :
         SiblingSweepConfigs(tasks, i, space, device, database,
                             static_cast<size_t>(options.sibling_sweep), plan.from)) {
      const bool fresh = !measured.count(config);
      // Without a recheck, the sweep measures only what is new to the task.
      if ((!fresh && !plan.recheck) || !planned.insert(config).second) continue;
      plan.fresh += fresh ? 1 : 0;
      plan.configs.push_back(std::move(config));
    }
  }
  return plan;
}

// TuneTasksOptions::sibling_sweep and recheck, once every task is tuned: one pass per task that
// measures its plan in one batch, whatever the run's batch size, so that it compares in one
// sitting.
void FinalPass(const Target& target, std::vector<TaskOutcome>& tasks,
               const TuneTasksOptions& options, Builder& builder, Database& database) {
  for (size_t i = 0; i < tasks.size(); ++i) {
    TaskOutcome& outcome = tasks[i];
    if (!outcome.Tunable() || !outcome.summary || outcome.build_only) continue;
    const Task task = target.MakeTask(outcome.task.op);
    FinalPassPlan plan = PlanFinalPass(tasks, i, task.space, task.device, options, database);
    outcome.sweep_from = plan.from;
    if (plan.configs.empty()) continue;
    const int64_t planned = static_cast<int64_t>(plan.configs.size());
    TuneOptions pass = options.tune;
    pass.seed_configs = std::move(plan.configs);
    pass.stop_after_seeds = true;  // those alone, and nothing the strategy would propose
    pass.remeasure_seeds = plan.recheck;
    pass.batch_size = std::max<int>(pass.batch_size, static_cast<int>(planned));
    pass.max_measurements = 0;
    pass.max_seconds = 0;
    pass.resume = true;
    pass.knowledge = TargetKnowledge{};
    pass.progress = ProgressMode::kQuiet;
    std::unique_ptr<Tuner> tuner = MakeTuner("random", Json::object());
    std::unique_ptr<Runner> runner = target.MakeRunner(task, options.run_timeout(outcome.task));
    const TuneSummary summary = Tune(task, *tuner, builder, *runner, &database, pass);
    const int64_t measured = summary.measurements - summary.resumed;
    outcome.sweep_measured = std::min(plan.fresh, measured);
    outcome.rechecked = measured - outcome.sweep_measured;
    AddFinalPass(outcome, summary, task.space);
    if (options.log == nullptr || measured == 0) continue;
    std::string what;
    if (outcome.sweep_measured > 0) {
      what = fmt::format("{} configuration{} of {} measured", outcome.sweep_measured,
                         outcome.sweep_measured > 1 ? "s" : "", TaskNumbers(outcome.sweep_from));
    }
    if (outcome.rechecked > 0) {
      what += fmt::format("{}{} measured again", what.empty() ? "" : ", ", outcome.rechecked);
    }
    *options.log << fmt::format("{}, task {}/{}: {}: best {} -> {}\n",
                                outcome.rechecked > 0 ? "recheck" : "sibling sweep", i + 1,
                                tasks.size(), what, Micros(outcome.best_before_sweep_s),
                                Micros(outcome.summary->best_time_s));
  }
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
    if (options.template_seeds) {
      task_options.seed_configs = options.template_seeds(task);
      outcome.template_seeds = static_cast<int64_t>(task_options.seed_configs.size());
    }
    const bool history_wanted = options.sibling_history && traits.learns_from_history;
    if ((options.sibling_seeds > 0 || history_wanted) && database != nullptr) {
      TransferHistory records =
          SiblingHistory(tasks, i, task.space, task.device, *database, outcome.siblings);
      if (options.sibling_seeds > 0) {
        for (Config& config :
             FastestDistinct(records, static_cast<size_t>(options.sibling_seeds))) {
          if (std::find(task_options.seed_configs.begin(), task_options.seed_configs.end(),
                        config) != task_options.seed_configs.end()) {
            continue;  // a template seed too: measured once
          }
          task_options.seed_configs.push_back(std::move(config));
          ++outcome.sibling_seeds;
        }
      }
      if (history_wanted) {
        outcome.history_records = static_cast<int64_t>(records.size());
        task_options.knowledge.history = std::move(records);
      }
    }
    if (options.log != nullptr) {
      *options.log << fmt::format("{} (weight {}", where, outcome.task.weight)
                   << (outcome.budget > 0 ? fmt::format(", budget {}", outcome.budget) : "")
                   << (outcome.template_seeds > 0
                           ? fmt::format(", {} template seed{} first", outcome.template_seeds,
                                         outcome.template_seeds > 1 ? "s" : "")
                           : "")
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
  if ((options.sibling_sweep > 0 || options.recheck > 0) && database != nullptr) {
    FinalPass(target, tasks, options, *builder, *database);
  }
}

}  // namespace glimpse
