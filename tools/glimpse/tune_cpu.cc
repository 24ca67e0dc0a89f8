// `glimpse tune --target cpu`: the distinct operators of a zoo model (--model) or the given ones
// (--op), tuned one after the other on this machine, each as its own workload in the database.
//
// Map: SelectLayers → PlanTasks on a CpuTarget (a missing template marks that task, it does not
// stop the others) → budgets → every flag checked → [kernel dir, database] → TuneTasks → report.
// Nothing is written before every check has passed. TuneTasksAndReport is shared with --target
// cuda (tune_cuda.cc).
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "compile_run.h"
#include "glimpse/activation_layouts.h"
#include "glimpse/cpu.h"
#include "glimpse/cpu_seeds.h"
#include "glimpse/database.h"
#include "glimpse/error.h"
#include "glimpse/model_zoo.h"
#include "glimpse/tuner.h"
#include "model_source.h"
#include "tune_common.h"
#include "tune_flags.h"
#include "tune_learned.h"
#include "tune_report.h"
#include "tuner_options.h"

namespace glimpse::cli {

namespace fs = std::filesystem;

// The model's layers (a zoo model or an ONNX file), or one layer per --op ("op1", "op2", …).
// Sets `model` to the model's name.
std::vector<ModelLayer> SelectLayers(const TuneFlags& flags, std::string& model,
                                     std::optional<ModelGraph>* graph, bool weights) {
  const bool by_model = flags.Given("--model"), by_op = flags.Given("--op");
  if (by_model && by_op) throw Error("--model and --op exclude each other; give one of them");
  if (by_model) {
    LoadedModel loaded = LoadModel(flags.model, flags.input_shapes, "--model", weights);
    for (const std::string& why : loaded.untunable) {
      std::cerr << "glimpse: note: not tuned (no template): " << why << "\n";
    }
    if (flags.layout == "blocked") {
      if (!loaded.graph) {
        throw Error(
            "--layout blocked needs a model with a graph: a CNN of the zoo or an ONNX "
            "file (" +
            flags.model + " lists matrix products only)");
      }
      PlanBlockedActivations(*loaded.graph, loaded.graph_layers);
      loaded.layers = ModelLayers(loaded.graph_layers);
    }
    if (loaded.layers.empty()) {
      throw Error("--model " + flags.model + ": no layer to tune (no convolution or matrix " +
                  "product a template describes)");
    }
    model = loaded.name;
    if (graph) *graph = std::move(loaded.graph);
    return std::move(loaded.layers);
  }
  if (!flags.input_shapes.empty()) throw Error("--input-shape needs --model FILE.onnx");
  if (flags.layout != "nchw") {
    throw Error("--layout " + flags.layout +
                " needs --model (an --op gives its activation blocks itself: in_block=16, "
                "out_block=16)");
  }
  if (!by_op) {
    throw Error("--target " + flags.target + " needs --model NAME (known: " + KnownModelsText() +
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
std::vector<int64_t> Budgets(const TuneFlags& flags, const std::vector<TaskOutcome>& tasks,
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
    for (const TaskOutcome& outcome : tasks) {
      if (outcome.Tunable()) tunable.push_back(outcome.task);
    }
    std::vector<int64_t> shares = SplitGlobalBudget(tunable, flags.global_budget);
    for (size_t i = 0, j = 0; i < tasks.size(); ++i) {
      if (tasks[i].Tunable()) budgets[i] = shares[j++];
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

size_t FirstTunable(const std::vector<TaskOutcome>& tasks) {
  size_t first = 0;
  while (first < tasks.size() && !tasks[first].Tunable()) ++first;
  return first;
}

void TuneTasksAndReport(const TuneFlags& flags, const Target& target, TasksReport& report,
                        const std::vector<int64_t>& budgets, const TuneOptions& options,
                        const Json& tuner_options,
                        decltype(TuneTasksOptions::pretrained_model) pretrained,
                        const std::function<void(Json&)>& amend_json) {
  KernelDir kernel_dir(flags.kernel_dir);
  std::optional<Database> database;
  if (!flags.no_database) database.emplace(flags.database);
  for (size_t i = 0; i < report.tasks.size(); ++i) {
    if (report.tasks[i].Tunable()) report.tasks[i].budget = budgets[i];
  }
  TuneTasksOptions tasks;
  tasks.tuner = flags.tuner;
  tasks.tuner_options = tuner_options;
  tasks.tune = options;
  tasks.run_timeout = [&flags](const ModelTask& task) { return RunTimeout(flags, task); };
  tasks.work_dir = kernel_dir.path();
  tasks.pretrained_model = std::move(pretrained);
  tasks.sibling_history = !flags.no_sibling_history;
  tasks.sibling_seeds = flags.sibling_seeds;
  tasks.sibling_sweep = flags.sibling_sweep;
  tasks.recheck = flags.recheck;
  if (target.Name() == "cpu" && flags.template_seeds > 0) {
    const int threads =
        flags.threads > 0 ? flags.threads : static_cast<int>(std::thread::hardware_concurrency());
    tasks.template_seeds = [&flags, threads](const Task& tuned) {
      std::vector<Config> seeds = CpuTemplateSeeds(OperatorFromJson(tuned.description), tuned.space,
                                                   HostVectorRegisters(), threads);
      if (seeds.size() > static_cast<size_t>(flags.template_seeds)) {
        seeds.resize(static_cast<size_t>(flags.template_seeds));
      }
      return seeds;
    };
  }
  if (options.progress != ProgressMode::kQuiet) tasks.log = &std::cerr;
  TuneTasks(target, report.tasks, tasks, database ? &*database : nullptr);
  if (flags.json) {
    Json json = TasksReportToJson(report);
    if (amend_json) amend_json(json);
    std::cout << json.dump(2) << "\n";
  } else {
    PrintTasksReport(report, std::cout);
  }
}

void CheckCompileFlags(const TuneFlags& flags, const std::optional<ModelGraph>& graph) {
  if (flags.compile_dir.empty()) return;
  if (!graph) {
    throw Error("--compile needs a model with a graph: a CNN of the zoo or an ONNX file (" +
                std::string(flags.Given("--op") ? "--op gives operators alone"
                                                : flags.model + " lists matrix products only") +
                ")");
  }
  if (flags.no_database) throw Error("--compile reads the run's database; drop --no-db");
  if (flags.json) throw Error("--compile prints tables; drop --json");
}

void RunCpuTune(const TuneFlags& given_flags) {
  // --hardware-budget N is --budget N with the strategy and plan that measure the model's best.
  const TuneFlags flags = ApplyCostModelFlags(given_flags);
  TasksReport report;
  report.target = "cpu";
  std::optional<ModelGraph> graph;
  std::vector<ModelLayer> layers =
      SelectLayers(flags, report.model, &graph, /*weights=*/!flags.compile_dir.empty());
  CheckCompileFlags(flags, graph);
  if (flags.recheck > 0 && flags.no_database) {
    throw Error(
        "--recheck measures again the fastest configurations the run's database holds; drop "
        "--no-db (or --recheck)");
  }
  report.layers = static_cast<int64_t>(layers.size());
  report.tuner = flags.tuner;
  report.seed = flags.seed;
  report.database = flags.no_database ? "" : flags.database;
  CpuTargetOptions target_options;
  target_options.threads = flags.threads;
  target_options.build_jobs = flags.build_jobs;
  target_options.build_timeout_s = flags.build_timeout_s;
  target_options.overlap_builds = flags.overlap_builds;
  target_options.warm_activations = flags.warm_activations;
  const CpuTarget target = [&] {
    try {
      return CpuTarget(target_options);
    } catch (const Error& error) {
      throw Error(std::string("--overlap-builds: ") + error.what());
    }
  }();
  report.device = target.Device();

  // A task per distinct operator; an operator without a template is reported, not tuned.
  report.tasks = PlanTasks(target, layers);
  std::vector<int64_t> budgets = Budgets(flags, report.tasks, report.budget_kind, report.budget);
  // Checks the shared flags (budgets of tasks that will be tuned are all positive or all 0).
  TuneOptions options = MakeTuneOptions(flags, budgets[FirstTunable(report.tasks)]);
  CheckMachineFlags(flags);
  Json tuner_options = ParseTunerOptions(flags.tuner_options);
  MakeTuner(flags.tuner, tuner_options);  // an unknown strategy or option fails here
  report.batch = flags.batch;
  report.tuner_options = tuner_options;
  std::shared_ptr<const ProgramTimeModel> cost_model = LoadCostModelFlag(flags, std::cerr);

  // Checks are done: from here on things are written.
  auto model_choices = std::make_shared<ModelChoiceLog>();
  TuneTasksAndReport(flags, target, report, budgets, options, tuner_options,
                     LearnedCostModels(cost_model, flags, model_choices),
                     [&model_choices](Json& json) { AddModelChoicesToJson(*model_choices, json); });
  PrintModelChoices(*model_choices, std::cerr);
  if (!flags.compile_dir.empty()) {
    // The tuned model as a library, built, checked and timed on 1 thread and on the tuning's.
    std::cout << "\n";
    CompileForCli(*graph, flags.model, flags.input_shapes, flags.database, flags.compile_dir, "",
                  flags.layout == "blocked", flags.warm_activations);
    RunFlags run;
    run.dir = flags.compile_dir;
    const int all =
        flags.threads > 0 ? flags.threads : static_cast<int>(std::thread::hardware_concurrency());
    run.threads = all > 1 ? std::vector<int>{1, all} : std::vector<int>{1};
    std::cout << "\n";
    RunCompiledModel(run);
  }
}

}  // namespace glimpse::cli
