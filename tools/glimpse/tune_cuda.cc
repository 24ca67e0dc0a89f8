// `glimpse tune --target cuda`: the distinct operators of a zoo model (--model) or the given ones
// (--op) as GPU tasks (MakeGpuTask), tuned one after the other on an NVIDIA GPU of this machine —
// CUDA kernels compiled with NVRTC (GpuBuilder) and measured in a worker process (GpuRunner) —
// each as its own workload in the database.
//
// Map: SelectLayers → every flag checked → the device (no device: Error "no CUDA device: <why>",
// unless --build-only) → PlanTasks on a CudaTarget (a missing template marks that task) →
// budgets → TuneTasksAndReport (tune_cpu.cc). Nothing is written before every check has passed.
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

#include "compile_run.h"
#include "glimpse/cuda.h"
#include "glimpse/database.h"
#include "glimpse/error.h"
#include "glimpse/gpu.h"
#include "glimpse/hardware.h"
#include "glimpse/model_zoo.h"
#include "glimpse/tuner.h"
#include "tune_common.h"
#include "tune_flags.h"
#include "tune_report.h"
#include "tuner_options.h"

namespace glimpse::cli {
namespace {

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

}  // namespace

void RunCudaTune(const TuneFlags& flags) {
  TasksReport report;
  report.target = "cuda";
  report.build_only = flags.build_only;
  std::optional<ModelGraph> graph;
  std::vector<ModelLayer> layers =
      SelectLayers(flags, report.model, &graph, /*weights=*/!flags.compile_dir.empty());
  CheckCompileFlags(flags, graph);
  if (!flags.compile_dir.empty() && flags.build_only) {
    throw Error("--compile takes measured records, and --build-only measures none; drop one");
  }
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
  report.batch = flags.batch;
  report.tuner_options = tuner_options;

  // The device, before any work: without one only --build-only can go on.
  std::optional<CudaDeviceInfo> device;
  if (std::string reason = CudaUnavailableReason(); reason.empty()) {
    device = QueryCudaDevice(flags.gpu);  // Error naming the ordinal when out of range
  } else if (!flags.build_only) {
    throw Error(reason);
  }
  CudaTargetOptions target_options;
  target_options.arch = ChooseArch(flags, device);
  target_options.build_only = flags.build_only;
  target_options.device = flags.gpu;
  target_options.build_jobs = flags.build_jobs;
  target_options.build_timeout_s = flags.build_timeout_s;
  const CudaTarget target(target_options, device);
  report.arch = target.Arch();
  // The records' device, which the report names too: build-only records are kept apart from
  // measured ones (resume reads only this device's records).
  report.device = target.Device();

  // A task per distinct operator; an operator without a GPU template is reported, not tuned.
  report.tasks = PlanTasks(target, layers);
  std::vector<int64_t> budgets = Budgets(flags, report.tasks, report.budget_kind, report.budget);
  // Checks the shared flags (budgets of tasks that will be tuned are all positive or all 0).
  TuneOptions options = MakeTuneOptions(flags, budgets[FirstTunable(report.tasks)]);

  // Checks are done: from here on things are written (tune_cpu.cc).
  TuneTasksAndReport(flags, target, report, budgets, options, tuner_options);
  if (!flags.compile_dir.empty()) {
    // The tuned model as a CUDA library with this GPU's records, built, checked and timed.
    std::cout << "\n";
    CompileTarget cuda;
    cuda.target = "cuda";
    cuda.arch = report.arch;
    cuda.device = report.device;
    CompileForCli(*graph, flags.model, flags.input_shapes, flags.database, flags.compile_dir, "",
                  false, false, cuda);
    RunFlags run;
    run.dir = flags.compile_dir;
    std::cout << "\n";
    RunCompiledModel(run);
  }
}

}  // namespace glimpse::cli
