// GpuBuilder: generated CUDA kernels → checked CUBINs and the JSON artifacts the runner loads;
// and the compile-only validity checker built on it.
//
// Each kernel is its own NVRTC compilation (NVRTC has no link step to amortise, unlike the CPU
// builder's shared objects), run in a child process by CompileCuda; parallel_invocations threads
// each drive one child at a time.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "glimpse/build_support.h"
#include "glimpse/cuda.h"
#include "glimpse/error.h"
#include "glimpse/json.h"

namespace glimpse {

namespace fs = std::filesystem;

namespace {

std::mutex probe_mutex;
CudaArchProbe arch_probe = nullptr;

Json Dims(const std::array<int64_t, 3>& dims) { return Json::array({dims[0], dims[1], dims[2]}); }

// A configuration whose prepared workspace (e.g. Winograd's transformed weights) does not fit in
// the device's memory beside the measurement is refused (instantiation) before NVRTC runs, rather
// than failing in the worker's cuMemAlloc. Builds for an architecture know no memory: no check.
void CheckPreparedFitsDevice(const Task& task, const CudaKernel& kernel, const GpuLimits& limits) {
  if (limits.memory_bytes <= 0 || !kernel.has_prepare) return;
  const Operator op = OperatorFromJson(task.description);
  CheckWorkspaceFitsMemory(GpuMeasurementDeviceBytes(op, limits.l2_bytes),
                           4.0 * static_cast<double>(kernel.prepared_floats), 0.0,
                           static_cast<double>(limits.memory_bytes), "the GPU's memory");
}

}  // namespace

std::string DefaultCudaArch() {
  CudaArchProbe probe;
  {
    std::lock_guard<std::mutex> lock(probe_mutex);
    probe = arch_probe;
  }
  if (probe != nullptr) {
    if (std::optional<std::string> arch = probe()) return *arch;
  }
  return "sm_90";
}

void SetCudaArchProbe(CudaArchProbe probe) {
  std::lock_guard<std::mutex> lock(probe_mutex);
  arch_probe = probe;
}

GpuBuilder::GpuBuilder(GpuBuilderOptions options) : options_(std::move(options)) {
  if (options_.timeout_s <= 0) throw Error("gpu builder: timeout_s must be > 0");
  if (options_.arch.empty()) options_.arch = DefaultCudaArch();
  if (!options_.limits) options_.limits = GpuLimitsForArch(options_.arch);
  options_.parallel_invocations = process::BuildJobs(options_.parallel_invocations);
  options_.work_dir = process::MakeBuildDir(options_.work_dir, "glimpse-cuda");
}

std::vector<BuildResult> GpuBuilder::Build(const std::vector<MeasureInput>& inputs) {
  std::vector<Generated<CudaKernel>> kernels(inputs.size());
  const int64_t batch = next_unit_;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string symbol = "glimpse_cuda_" + std::to_string(batch) + "_" + std::to_string(i);
    kernels[i] = RunTemplate<CudaKernel>([&] {
      CudaKernel kernel = GenerateCudaKernel(*inputs[i].task, inputs[i].config, symbol);
      CheckPreparedFitsDevice(*inputs[i].task, kernel, *options_.limits);
      return kernel;
    });
  }
  return BuildGenerated(kernels);
}

std::vector<BuildResult> GpuBuilder::BuildKernels(const std::vector<CudaKernel>& kernels) {
  std::vector<Generated<CudaKernel>> generated(kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i) generated[i].source = kernels[i];
  return BuildGenerated(generated);
}

std::vector<BuildResult> GpuBuilder::BuildGenerated(
    const std::vector<Generated<CudaKernel>>& kernels) {
  const GpuLimits& limits = *options_.limits;
  std::vector<BuildResult> results(kernels.size());
  std::vector<size_t> pending;
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (!kernels[i].ok()) {
      results[i].status = kernels[i].status;
      results[i].error = kernels[i].error;
      continue;
    }
    GpuCheck check = CheckLaunch(kernels[i].source, limits);
    if (!check.ok()) {
      results[i].status = check.status;
      results[i].error = check.reason;
      continue;
    }
    pending.push_back(i);
  }
  const int64_t first_unit = next_unit_;
  next_unit_ += static_cast<int64_t>(kernels.size()) + 1;

  CudaCompileOptions compile_options;
  compile_options.extra_options = options_.extra_options;
  compile_options.timeout_s = options_.timeout_s;
  compile_options.max_error_chars = options_.max_error_chars;

  auto build = [&](size_t i) {
    const CudaKernel& kernel = kernels[i].source;
    BuildResult& result = results[i];
    CudaCompileResult compiled;
    try {
      compiled = CompileCuda(kernel.code, options_.arch, compile_options);
    } catch (const Error& error) {
      result.status = MeasureStatus::kCompileDevice;
      result.error = error.what();
      return;
    }
    result.compile_time_s = compiled.compile_time_s;
    if (compiled.timed_out) {
      result.status = MeasureStatus::kBuildTimeout;
      result.error = compiled.log;
      return;
    }
    // The functions to check: the kernel, then its prepare kernel.
    std::vector<std::pair<std::string, const CudaLaunch*>> functions = {
        {kernel.symbol, &kernel.launch}};
    if (kernel.has_prepare)
      functions.emplace_back(kernel.symbol + "_prepare", &kernel.prepare_launch);
    std::string refusal;
    std::string notes;
    for (const auto& [symbol, launch] : functions) {
      auto it = compiled.resources.find(symbol);
      if (it == compiled.resources.end()) {
        if (compiled.ok && refusal.empty()) {
          refusal = "the compiled code has no kernel '" + symbol + "' (expected extern \"C\" " +
                    "__global__ void " + symbol + "(…))";
        }
        continue;
      }
      GpuCheck check = CheckResources(symbol, it->second, *launch, limits);
      if (!check.ok() && refusal.empty()) refusal = check.reason;
      if (!check.note.empty()) notes += (notes.empty() ? "" : "; ") + check.note;
    }
    if (!compiled.ok || !refusal.empty()) {
      // ptxas refuses some limits silently (too much static shared memory): the check's reason
      // then says why, ahead of the log.
      result.status = MeasureStatus::kCompileDevice;
      std::string error = refusal;
      if (!compiled.ok) error += (error.empty() ? "" : "\n") + compiled.log;
      result.error = process::TruncateMessage(std::move(error), options_.max_error_chars);
      return;
    }
    const CudaResourceUsage& usage = compiled.resources.at(kernel.symbol);
    const std::string base = (fs::path(options_.work_dir) /
                              ("unit_" + std::to_string(first_unit + static_cast<int64_t>(i))))
                                 .string();
    Json artifact = {
        {"cubin", fs::absolute(base + ".cubin").string()},
        {"symbol", kernel.symbol},
        {"grid", Dims(kernel.launch.grid)},
        {"block", Dims(kernel.launch.block)},
        {"num_inputs", kernel.num_inputs},
        {"has_prepare", kernel.has_prepare},
        {"prepare_grid", Dims(kernel.prepare_launch.grid)},
        {"prepare_block", Dims(kernel.prepare_launch.block)},
        {"prepared_floats", kernel.prepared_floats},
        {"arch", options_.arch},
        {"registers", usage.registers},
        {"shared_bytes", usage.shared_bytes},
        {"local_bytes", usage.local_bytes},
        {"spill_stores", usage.spill_stores},
        {"spill_loads", usage.spill_loads},
        {"compile_time_s", compiled.compile_time_s},
    };
    if (kernel.has_prepare) {
      const CudaResourceUsage& prepare = compiled.resources.at(kernel.symbol + "_prepare");
      artifact["prepare_registers"] = prepare.registers;
      artifact["prepare_shared_bytes"] = prepare.shared_bytes;
    }
    if (!notes.empty()) artifact["note"] = notes;
    std::ofstream cubin(base + ".cubin", std::ios::binary);
    cubin.write(compiled.cubin.data(), static_cast<std::streamsize>(compiled.cubin.size()));
    std::ofstream json(base + ".json");
    json << artifact.dump(2) << "\n";
    if (!cubin || !json) {
      result.status = MeasureStatus::kCompileDevice;
      result.error = "cannot write " + base + ".cubin / .json";
      return;
    }
    result.status = MeasureStatus::kOk;
    result.artifact = base + ".json";
  };

  process::ForEachInParallel(pending.size(), options_.parallel_invocations,
                             [&](size_t j) { build(pending[j]); });
  return results;
}

// ---- Validity

CompileCudaValidityChecker::CompileCudaValidityChecker(const Task& task, GpuBuilderOptions options)
    : task_(task), builder_(std::move(options)) {}

std::vector<ValidityResult> CompileCudaValidityChecker::Check(const std::vector<Config>& configs) {
  return CheckByBuilding(task_, builder_, configs);
}

}  // namespace glimpse
