// CudaTarget (glimpse/cuda.h): an NVIDIA GPU, or a build-only run for an architecture.
#include <algorithm>

#include "glimpse/build_support.h"
#include "glimpse/cuda.h"
#include "glimpse/error.h"

namespace glimpse {

CudaTarget::CudaTarget(CudaTargetOptions options, std::optional<CudaDeviceInfo> device)
    : options_(std::move(options)), device_(std::move(device)) {
  if (options_.arch.empty()) throw Error("cuda target: no architecture given");
  if (!options_.build_only && !device_) {
    throw Error("cuda target: a measured run needs a CUDA device (or build_only)");
  }
}

std::string CudaTarget::Device() const {
  return options_.build_only ? "build-only " + options_.arch : device_->name;
}

Task CudaTarget::MakeTask(const Operator& op) const {
  // A task that cannot be measured is refused before anything is built: the device holds its
  // tensors and the L2 flush, the worker's host memory the inputs, the output and the reference.
  // A build-only run has no device to check against.
  if (device_ && !options_.build_only) {
    CheckMeasurementFitsMemory(op, GpuMeasurementDeviceBytes(op, device_->l2_bytes),
                               static_cast<double>(device_->memory_bytes),
                               device_->name + "'s memory (cuDeviceTotalMem)");
    CheckMeasurementFitsMemory(op, GpuMeasurementHostBytes(op),
                               static_cast<double>(process::UsableMemoryBytes()),
                               "this machine's memory, where the GPU worker keeps the inputs and "
                               "the reference (MemTotal in /proc/meminfo, or the cgroup's "
                               "memory.max)");
  }
  return MakeGpuTask(op, Device());
}

GpuBuilderOptions CudaTarget::BuildOptions(const std::string& work_dir) const {
  GpuBuilderOptions build;
  build.arch = options_.arch;
  build.work_dir = work_dir;
  build.parallel_invocations = options_.build_jobs;
  build.timeout_s = options_.build_timeout_s;
  // The live device's own limits when the kernels are for it, else its architecture's.
  build.limits = device_ && device_->Arch() == options_.arch ? ToGpuLimits(*device_)
                                                             : GpuLimitsForArch(options_.arch);
  return build;
}

std::unique_ptr<Builder> CudaTarget::MakeBuilder(const std::string& work_dir) const {
  GpuBuilderOptions build = BuildOptions(work_dir);
  // Builds overlap measuring (GpuRunner::TimesBesideBuilds): keep one CPU for the worker, whose
  // launches must keep the GPU fed while a kernel is timed.
  if (build.parallel_invocations <= 0 && !options_.build_only) {
    build.parallel_invocations = std::max(1, static_cast<int>(process::AllowedCpus().size()) - 1);
  }
  return std::make_unique<GpuBuilder>(build);
}

std::unique_ptr<Runner> CudaTarget::MakeRunner(const Task& task, double timeout_s) const {
  if (options_.build_only) return std::make_unique<BuildOnlyRunner>();
  GpuRunnerOptions run;
  run.device = options_.device;
  run.timeout_s = timeout_s;
  return std::make_unique<GpuRunner>(run);
}

std::shared_ptr<ValidityChecker> CudaTarget::MakeValidityChecker(
    const Task& task, const std::string& work_dir) const {
  return std::make_shared<CompileCudaValidityChecker>(task, BuildOptions(work_dir));
}

// The table's figures corrected by the query (a MIG slice has fewer SMs than its product).
std::shared_ptr<const GpuSpec> CudaTarget::DescribeDevice(std::vector<std::string>& notes) const {
  if (!device_) return nullptr;
  try {
    return std::make_shared<const GpuSpec>(GpuSpecOfDevice(*device_, GpuTable::Default(), &notes));
  } catch (const Error& error) {
    notes.push_back(std::string(error.what()) + " (the tuner looks the name up instead)");
    return nullptr;
  }
}

}  // namespace glimpse
