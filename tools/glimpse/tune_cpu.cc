// `glimpse tune --target cpu`: the distinct operators of a zoo model (--model) or the given ones
// (--op), tuned one after the other on this machine, each as its own workload in the database.
//
// Map: SelectLayers → ExtractTasks → MakeCpuTask per task (a missing template marks that task,
// it does not stop the others) → budgets → every flag checked → [kernel dir, database, builder,
// runner] → Tune per task → report. Nothing is written before every check has passed.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "glimpse/cpu.h"
#include "glimpse/database.h"
#include "glimpse/error.h"
#include "glimpse/model_zoo.h"
#include "glimpse/tuner.h"
#include "tune_common.h"
#include "tune_cpu_report.h"
#include "tune_flags.h"
#include "tuner_options.h"

namespace glimpse::cli {

namespace fs = std::filesystem;

namespace {

std::string KnownModels() {
  std::string known;
  for (const std::string& name : ZooModelNames()) known += (known.empty() ? "" : ", ") + name;
  return known;
}

}  // namespace

// The zoo model's layers, or one layer per --op ("op1", "op2", …). Sets `model` for a zoo model.
std::vector<ModelLayer> SelectLayers(const TuneFlags& flags, std::string& model) {
  const bool by_model = flags.Given("--model"), by_op = flags.Given("--op");
  if (by_model && by_op) throw Error("--model and --op exclude each other; give one of them");
  if (by_model) {
    try {
      model = CanonicalZooModelName(flags.model);
    } catch (const Error& error) {
      throw Error(std::string("--model: ") + error.what());
    }
    return ZooModel(model);
  }
  if (!by_op) {
    throw Error("--target " + flags.target + " needs --model NAME (known: " + KnownModels() +
                ") or --op TEXT (e.g. --op dense:M=1,N=1000,K=512)");
  }
  std::vector<ModelLayer> layers;
  for (size_t i = 0; i < flags.ops.size(); ++i) {
    try {
      layers.push_back({"op" + std::to_string(i + 1), ParseOperator(flags.ops[i])});
    } catch (const Error& error) {
      throw Error("--op '" + flags.ops[i] + "': " + error.what());
    }
  }
  return layers;
}

void CheckMachineFlags(const TuneFlags& flags) {
  if (flags.threads < 0) {
    throw Error(
        fmt::format("--threads must be 0 (every CPU available) or a positive number of "
                    "threads (got {})",
                    flags.threads));
  }
  if (!(flags.run_timeout_s > 0) || std::isinf(flags.run_timeout_s)) {
    throw Error(fmt::format("--run-timeout must be a positive number of seconds (got {})",
                            flags.run_timeout_s));
  }
  if (!(flags.build_timeout_s > 0) || std::isinf(flags.build_timeout_s)) {
    throw Error(fmt::format("--build-timeout must be a positive number of seconds (got {})",
                            flags.build_timeout_s));
  }
  if (flags.build_jobs < 0) {
    throw Error(
        fmt::format("--build-jobs must be 0 (one per CPU) or a positive number of "
                    "compiler processes (got {})",
                    flags.build_jobs));
  }
}

// Measurement budget per task: --budget for each, or --global-budget split over the tasks that
// can be tuned (SplitGlobalBudget); 0 where only --time-budget limits a task.
std::vector<int64_t> Budgets(const TuneFlags& flags, const std::vector<CpuTaskOutcome>& tasks,
                             std::string& kind, int64_t& total) {
  std::vector<int64_t> budgets(tasks.size(), 0);
  if (flags.Given("--global-budget")) {
    if (flags.Given("--budget")) {
      throw Error(
          "--budget (per task) and --global-budget (shared by the tasks) exclude each "
          "other; give one of them");
    }
    if (flags.global_budget <= 0) {
      throw Error(
          fmt::format("--global-budget must be a positive number of measurements (got "
                      "{})",
                      flags.global_budget));
    }
    std::vector<ModelTask> tunable;
    for (const CpuTaskOutcome& outcome : tasks) {
      if (outcome.error.empty()) tunable.push_back(outcome.task);
    }
    std::vector<int64_t> shares = SplitGlobalBudget(tunable, flags.global_budget);
    for (size_t i = 0, j = 0; i < tasks.size(); ++i) {
      if (tasks[i].error.empty()) budgets[i] = shares[j++];
    }
    kind = "global";
    total = flags.global_budget;
    return budgets;
  }
  // As for replay: --time-budget alone lifts the measurement budget.
  const bool counted = flags.Given("--budget") || flags.time_budget_s == 0.0;
  kind = counted ? "per-task" : "time";
  total = counted ? flags.budget : 0;
  budgets.assign(tasks.size(), total);
  return budgets;
}

// Seconds a candidate may take: --run-timeout, or by default 10 s plus 4 s per GFLOP of the
// operator, because a fresh worker computes the reference output (double precision, plain loops,
// about 2 s per GFLOP on a busy 2-core machine) within the time of its first candidate.
double RunTimeout(const TuneFlags& flags, const ModelTask& task) {
  if (flags.Given("--run-timeout")) return flags.run_timeout_s;
  return flags.run_timeout_s + 4.0 * task.Flops() / 1e9;
}

KernelDir::KernelDir(const std::string& keep) {
  if (!keep.empty()) {
    std::error_code error;
    fs::create_directories(keep, error);
    if (error) throw Error("--kernel-dir " + keep + ": " + error.message());
    path_ = keep;
    return;
  }
  std::string pattern = (fs::temp_directory_path() / "glimpse-kernels-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw Error("cannot create a kernel directory under " + fs::temp_directory_path().string() +
                "; give one with --kernel-dir");
  }
  path_ = pattern;
  remove_ = true;
}

KernelDir::~KernelDir() {
  std::error_code ignored;
  if (remove_) fs::remove_all(path_, ignored);
}

namespace {

// Validity checks of task `index` compile into their own directory: each builder numbers its
// units from 0, and two builders must never write the same file.
CpuBuilderOptions CheckerBuildOptions(CpuBuilderOptions options, size_t index) {
  options.work_dir = (fs::path(options.work_dir) / fmt::format("validity-{}", index)).string();
  return options;
}

}  // namespace

void RunCpuTune(const TuneFlags& flags) {
  CpuTuneReport report;
  std::vector<ModelLayer> layers = SelectLayers(flags, report.model);
  report.layers = static_cast<int64_t>(layers.size());
  report.device = CpuDeviceName();
  report.tuner = flags.tuner;
  report.seed = flags.seed;
  report.database = flags.no_database ? "" : flags.database;

  // A Task per distinct operator; an operator without a template is reported, not tuned.
  std::vector<std::optional<Task>> tasks;
  for (ModelTask& task : ExtractTasks(layers)) {
    CpuTaskOutcome outcome;
    outcome.task = std::move(task);
    try {
      tasks.push_back(MakeCpuTask(outcome.task.op));
      outcome.workload_key = tasks.back()->WorkloadKey();
    } catch (const Error& error) {
      tasks.push_back(std::nullopt);
      outcome.error = error.what();
    }
    report.tasks.push_back(std::move(outcome));
  }
  size_t first_tunable = 0;
  while (first_tunable < tasks.size() && !tasks[first_tunable]) ++first_tunable;
  if (first_tunable == tasks.size()) {
    const CpuTaskOutcome& first = report.tasks.front();
    throw Error(fmt::format("no operator can be tuned: {}: {}", first.task.op_text, first.error));
  }

  std::vector<int64_t> budgets = Budgets(flags, report.tasks, report.budget_kind, report.budget);
  // Checks the shared flags (budgets of tasks that will be tuned are all positive or all 0).
  TuneOptions options = MakeTuneOptions(flags, budgets[first_tunable]);
  CheckMachineFlags(flags);
  Json tuner_options = ParseTunerOptions(flags.tuner_options);
  MakeTuner(flags.tuner, tuner_options);  // an unknown strategy or option fails here
  const bool validity_init = tuner_options.value("validity_init", false) == true;

  // Checks are done: from here on things are written.
  KernelDir kernel_dir(flags.kernel_dir);
  CpuBuilderOptions build_options;
  build_options.work_dir = kernel_dir.path();
  build_options.parallel_invocations = flags.build_jobs;
  build_options.timeout_s = flags.build_timeout_s;
  CpuBuilder builder(build_options);
  std::optional<Database> database;
  if (!flags.no_database) database.emplace(flags.database);

  const bool quiet = options.progress == ProgressMode::kQuiet;
  for (size_t i = 0; i < tasks.size(); ++i) {
    CpuTaskOutcome& outcome = report.tasks[i];
    std::string where = fmt::format("task {}/{}: {}", i + 1, tasks.size(), outcome.task.op_text);
    if (!tasks[i]) {
      if (!quiet) std::cerr << where << ": skipped, " << outcome.error << "\n";
      continue;
    }
    outcome.budget = budgets[i];
    if (!quiet) {
      std::cerr << fmt::format("{} (weight {}", where, outcome.task.weight)
                << (outcome.budget > 0 ? fmt::format(", budget {})\n", outcome.budget) : ")\n");
    }
    const Task& task = *tasks[i];
    TuneOptions task_options = options;
    task_options.max_measurements = outcome.budget;
    std::unique_ptr<Tuner> tuner = MakeTuner(flags.tuner, tuner_options);
    if (validity_init) {
      task_options.knowledge.validity_checker =
          std::make_shared<CompileValidityChecker>(task, CheckerBuildOptions(build_options, i));
    }
    // A runner per task: its timeout depends on the operator (RunTimeout), and its worker holds
    // one operator's inputs and reference at a time anyway.
    CpuRunnerOptions run_options;
    run_options.threads = flags.threads;
    run_options.timeout_s = RunTimeout(flags, outcome.task);
    CpuRunner runner(run_options);
    TuneSummary summary =
        Tune(task, *tuner, builder, runner, database ? &*database : nullptr, task_options);
    if (summary.best_config) outcome.best_config = task.space.ConfigToJson(*summary.best_config);
    outcome.summary = std::move(summary);
  }

  if (flags.json) {
    std::cout << CpuReportToJson(report).dump(2) << "\n";
  } else {
    PrintCpuReport(report, std::cout);
  }
}

}  // namespace glimpse::cli
