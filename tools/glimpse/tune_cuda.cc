// `glimpse tune --target cuda`: the distinct operators of a zoo model (--model) or the given ones
// (--op) as GPU tasks (MakeGpuTask), tuned one after the other on an NVIDIA GPU of this machine —
// CUDA kernels compiled with NVRTC (GpuBuilder) and measured in a worker process (GpuRunner) —
// each as its own workload in the database.
//
// Map: SelectLayers → ExtractTasks → every flag checked → the device (no device: Error "no CUDA
// device: <why>", unless --build-only) → MakeGpuTask per task (a missing template marks that
// task) → budgets → [kernel dir, database, builder, runner] → Tune per task → the report of
// tune_cpu_report.h. Nothing is written before every check has passed.
//
// --build-only compiles and checks candidates against the device limits without running them:
// records get ok / instantiation / compile-device / build-timeout and no time. Their device is
// "build-only <arch>", so that a later measured run on a real device does not resume them as if
// they had been measured.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>

#include "glimpse/cuda.h"
#include "glimpse/database.h"
#include "glimpse/error.h"
#include "glimpse/gpu.h"
#include "glimpse/hardware.h"
#include "glimpse/model_zoo.h"
#include "glimpse/tuner.h"
#include "tune_common.h"
#include "tune_cpu_report.h"
#include "tune_flags.h"
#include "tuner_options.h"

namespace glimpse::cli {
namespace {

// The runner of --build-only: a built candidate is ok with no time (+inf: it cannot be among
// the best), a failed build passes through; the cost is the compile time.
class BuildOnlyRunner : public Runner {
 public:
  std::vector<MeasureResult> Run(const std::vector<MeasureInput>& inputs,
                                 const std::vector<BuildResult>& builds) override {
    std::vector<MeasureResult> results(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      MeasureResult& result = results[i];
      result.status = builds[i].status;
      result.error = builds[i].error;
      result.compile_time_s = builds[i].compile_time_s;
      result.cost_s = builds[i].compile_time_s;
      result.time_s = std::numeric_limits<double>::infinity();
    }
    return results;
  }
};

// The architecture kernels are compiled for: --arch (checked against the known ones), else the
// device's, else (build-only without a device) sm_90.
std::string ChooseArch(const TuneFlags& flags, const std::optional<CudaDeviceInfo>& device) {
  if (flags.Given("--arch")) {
    try {
      GpuLimitsForArch(flags.arch);
    } catch (const Error& error) {
      throw Error(std::string("--arch: ") + error.what());
    }
    if (NvrtcAvailable()) {
      std::vector<std::string> supported = NvrtcSupportedArchs();
      if (std::find(supported.begin(), supported.end(), flags.arch) == supported.end()) {
        std::string known;
        for (const std::string& arch : supported) known += (known.empty() ? "" : ", ") + arch;
        throw Error("--arch " + flags.arch + ": NVRTC " + NvrtcVersion() +
                    " cannot compile for it; it compiles for " + known);
      }
    }
    if (device && !flags.build_only && device->Arch() != flags.arch) {
      // A CUBIN runs only on its own architecture's family: measuring it elsewhere fails.
      throw Error(fmt::format(
          "--arch {} differs from device {}'s architecture {} ({}); a kernel is measured on the "
          "device it is compiled for: drop --arch, or add --build-only to only compile",
          flags.arch, device->ordinal, device->Arch(), device->name));
    }
    return flags.arch;
  }
  return device ? device->Arch() : "sm_90";
}

// Validity checks of task `index` compile into their own directory (each builder numbers its
// units from 0, and two builders must never write the same file).
GpuBuilderOptions CheckerBuildOptions(GpuBuilderOptions options, size_t index) {
  options.work_dir = fmt::format("{}/validity-{}", options.work_dir, index);
  return options;
}

}  // namespace

void RunCudaTune(const TuneFlags& flags) {
  CpuTuneReport report;
  report.target = "cuda";
  report.build_only = flags.build_only;
  std::vector<ModelLayer> layers = SelectLayers(flags, report.model);
  report.layers = static_cast<int64_t>(layers.size());
  report.tuner = flags.tuner;
  report.seed = flags.seed;
  report.database = flags.no_database ? "" : flags.database;
  CheckMachineFlags(flags);
  if (flags.gpu < 0) {
    throw Error(fmt::format("--gpu must be a CUDA device ordinal, 0 or more (got {})", flags.gpu));
  }
  Json tuner_options = ParseTunerOptions(flags.tuner_options);
  MakeTuner(flags.tuner, tuner_options);  // an unknown strategy or option fails here
  const bool validity_init = tuner_options.value("validity_init", false) == true;

  // The device, before any work: without one only --build-only can go on.
  std::optional<CudaDeviceInfo> device;
  if (std::string reason = CudaUnavailableReason(); reason.empty()) {
    device = QueryCudaDevice(flags.gpu);  // Error naming the ordinal when out of range
  } else if (!flags.build_only) {
    throw Error(reason);
  }
  report.arch = ChooseArch(flags, device);
  // The records' device, which the report names too: build-only records are kept apart from
  // measured ones (resume reads only this device's records).
  const std::string device_name = flags.build_only ? "build-only " + report.arch : device->name;
  report.device = device_name;

  // A Task per distinct operator; an operator without a GPU template is reported, not tuned.
  std::vector<std::optional<Task>> tasks;
  for (ModelTask& task : ExtractTasks(layers)) {
    CpuTaskOutcome outcome;
    outcome.task = std::move(task);
    outcome.build_only = flags.build_only;
    try {
      tasks.push_back(MakeGpuTask(outcome.task.op, device_name));
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
    throw Error(
        fmt::format("no operator can be tuned on a GPU: {}: {}", first.task.op_text, first.error));
  }
  std::vector<int64_t> budgets = Budgets(flags, report.tasks, report.budget_kind, report.budget);
  // Checks the shared flags (budgets of tasks that will be tuned are all positive or all 0).
  TuneOptions options = MakeTuneOptions(flags, budgets[first_tunable]);

  // Checks are done: from here on things are written.
  KernelDir kernel_dir(flags.kernel_dir);
  GpuBuilderOptions build_options;
  build_options.arch = report.arch;
  build_options.work_dir = kernel_dir.path();
  build_options.parallel_invocations = flags.build_jobs;
  build_options.timeout_s = flags.build_timeout_s;
  // The live device's own limits when the kernels are for it, else its architecture's.
  build_options.limits = device && device->Arch() == report.arch ? ToGpuLimits(*device)
                                                                 : GpuLimitsForArch(report.arch);
  GpuBuilder builder(build_options);
  // A strategy that reads the device (Glimpse's Blueprint) gets the live device as the driver
  // describes it (the table's figures corrected by the query: a MIG slice has fewer SMs than its
  // product).
  std::shared_ptr<const GpuSpec> device_spec;
  if (device && TraitsOfTuner(flags.tuner).reads_device) {
    std::vector<std::string> notes;
    try {
      device_spec =
          std::make_shared<const GpuSpec>(GpuSpecOfDevice(*device, GpuTable::Default(), &notes));
    } catch (const Error& error) {
      notes.push_back(std::string(error.what()) + " (the tuner looks the name up instead)");
    }
    for (const std::string& note : notes) std::cerr << "glimpse: " << note << "\n";
  }
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
    task_options.knowledge.gpu = device_spec;
    if (validity_init) {
      task_options.knowledge.validity_checker =
          std::make_shared<CompileCudaValidityChecker>(task, CheckerBuildOptions(build_options, i));
    }
    // A runner per task: its timeout depends on the operator (RunTimeout), and its worker holds
    // one operator's inputs and reference at a time anyway.
    std::unique_ptr<Runner> runner;
    if (flags.build_only) {
      runner = std::make_unique<BuildOnlyRunner>();
    } else {
      GpuRunnerOptions run_options;
      run_options.device = flags.gpu;
      run_options.timeout_s = RunTimeout(flags, outcome.task);
      runner = std::make_unique<GpuRunner>(run_options);
    }
    TuneSummary summary =
        Tune(task, *tuner, builder, *runner, database ? &*database : nullptr, task_options);
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
