// GpuBuilder: generated CUDA kernels → checked CUBINs and the JSON artifacts the runner loads;
// and the compile-only validity checker built on it.
//
// Each kernel is its own NVRTC compilation (NVRTC has no link step to amortise, unlike the CPU
// builder's shared objects), run in a child process by CompileCuda; parallel_invocations threads
// each drive one child at a time.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "glimpse/cuda.h"
#include "glimpse/error.h"
#include "glimpse/json.h"

namespace glimpse {

namespace fs = std::filesystem;

namespace {

std::mutex probe_mutex;
CudaArchProbe arch_probe = nullptr;

std::string MakeWorkDir() {
  std::string pattern = (fs::temp_directory_path() / "glimpse-cuda-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw Error("cannot create a build directory under " + fs::temp_directory_path().string());
  }
  return pattern;
}

std::string Truncate(std::string text, size_t max_chars) {
  if (text.size() > max_chars) {
    text.resize(max_chars);
    text += " …";
  }
  return text;
}

Json Dims(const std::array<int64_t, 3>& dims) { return Json::array({dims[0], dims[1], dims[2]}); }

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
  if (options_.parallel_invocations <= 0) {
    options_.parallel_invocations = std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  }
  if (options_.work_dir.empty()) {
    options_.work_dir = MakeWorkDir();
  } else {
    fs::create_directories(options_.work_dir);
  }
}

std::vector<BuildResult> GpuBuilder::Build(const std::vector<MeasureInput>& inputs) {
  std::vector<CudaKernel> kernels(inputs.size());
  const int64_t batch = next_unit_;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string symbol = "glimpse_cuda_" + std::to_string(batch) + "_" + std::to_string(i);
    try {
      kernels[i] = GenerateCudaKernel(*inputs[i].task, inputs[i].config, symbol);
    } catch (const Error& error) {
      kernels[i] = CudaKernel{};
      kernels[i].symbol = error.what();
    }
  }
  return BuildKernels(kernels);
}

std::vector<BuildResult> GpuBuilder::BuildKernels(const std::vector<CudaKernel>& kernels) {
  const GpuLimits& limits = *options_.limits;
  std::vector<BuildResult> results(kernels.size());
  std::vector<size_t> pending;
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i].code.empty()) {
      results[i].status = MeasureStatus::kInstantiation;
      results[i].error = kernels[i].symbol;
      continue;
    }
    GpuCheck check = CheckLaunch(kernels[i], limits);
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
    const CudaKernel& kernel = kernels[i];
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
      result.error = Truncate(std::move(error), options_.max_error_chars);
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

  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t j; (j = next.fetch_add(1)) < pending.size();) build(pending[j]);
  };
  std::vector<std::thread> threads;
  const int count = std::min<int>(options_.parallel_invocations, static_cast<int>(pending.size()));
  for (int t = 0; t < count; ++t) threads.emplace_back(work);
  for (std::thread& thread : threads) thread.join();
  return results;
}

// ---- Validity

CompileCudaValidityChecker::CompileCudaValidityChecker(const Task& task, GpuBuilderOptions options)
    : task_(task), builder_(std::move(options)) {}

std::vector<ValidityResult> CompileCudaValidityChecker::Check(const std::vector<Config>& configs) {
  std::vector<ValidityResult> results(configs.size());
  std::vector<MeasureInput> inputs;
  std::vector<size_t> positions;  // where each built input's result goes
  for (size_t i = 0; i < configs.size(); ++i) {
    if (!task_.space.InRange(configs[i])) {
      throw Error("validity check of '" + task_.name + "': configuration out of the space's range");
    }
    if (!task_.space.IsValid(configs[i])) {
      results[i].status = MeasureStatus::kInstantiation;  // never built, costs nothing
      continue;
    }
    inputs.push_back({&task_, configs[i]});
    positions.push_back(i);
  }
  std::vector<BuildResult> builds = builder_.Build(inputs);
  for (size_t j = 0; j < builds.size(); ++j) {
    ValidityResult& result = results[positions[j]];
    result.valid = builds[j].status == MeasureStatus::kOk;
    result.status = builds[j].status;
    result.cost_s = builds[j].compile_time_s;
  }
  return results;
}

}  // namespace glimpse
