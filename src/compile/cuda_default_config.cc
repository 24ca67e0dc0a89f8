// The default configuration of a GPU kernel a compiled model's task has no record for
// (glimpse/model_compile.h, DefaultCudaConfig): a rule of thumb over sampled valid
// configurations, checked against the architecture's limits before and, with NVRTC, after
// compiling.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "glimpse/cuda.h"
#include "glimpse/error.h"
#include "glimpse/gpu.h"
#include "glimpse/model_compile.h"
#include "glimpse/random.h"

namespace glimpse {

Json DefaultCudaConfig(const Operator& op, const std::string& arch, int candidates, uint64_t seed) {
  const GpuLimits limits = GpuLimitsForArch(arch);
  const Task task = MakeGpuTask(op, "");
  // Twice the threads the GPU holds at once: enough blocks for every SM, with a second wave to
  // hide the first's tail.
  const double sms = limits.sm_count > 0 ? limits.sm_count : 132;
  const double target_threads = 2.0 * sms * static_cast<double>(limits.max_threads_per_sm);
  struct Candidate {
    bool outside_block_range;
    double distance;  // |log2(threads / target)|
    Config config;
    CudaKernel kernel;
  };
  std::vector<Candidate> ranked;
  Rng rng(seed);
  for (int i = 0; i < candidates; ++i) {
    std::optional<Config> config = task.space.SampleValid(rng);
    if (!config) break;
    CudaKernel kernel;
    try {
      kernel = GenerateCudaKernel(task, *config, "glimpse_default");
    } catch (const Error&) {
      continue;  // does not instantiate
    }
    if (!CheckLaunch(kernel, limits).ok()) continue;
    const int64_t block = kernel.launch.ThreadsPerBlock();
    const double threads = static_cast<double>(block * kernel.launch.Blocks());
    ranked.push_back({block < 64 || block > 256, std::fabs(std::log2(threads / target_threads)),
                      std::move(*config), std::move(kernel)});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.outside_block_range, a.distance) <
           std::tie(b.outside_block_range, b.distance);
  });
  if (!NvrtcAvailable()) {
    if (ranked.empty()) {
      throw Error(fmt::format("compile: no configuration of {} launches on {}",
                              OperatorToString(op), arch));
    }
    return task.space.ConfigToJson(ranked.front().config);
  }
  // The first few by the rule whose compiled kernel fits the registers and shared memory.
  constexpr size_t kCompiles = 6;
  std::string last_reason = "no configuration launches on " + arch;
  for (size_t i = 0; i < std::min(ranked.size(), kCompiles); ++i) {
    const Candidate& c = ranked[i];
    const CudaCompileResult compiled = CompileCuda(c.kernel.code, arch);
    if (!compiled.ok) {
      last_reason = "NVRTC: " + compiled.log.substr(0, 400);
      continue;
    }
    auto usage = compiled.resources.find(c.kernel.symbol);
    if (usage == compiled.resources.end()) return task.space.ConfigToJson(c.config);
    const GpuCheck check = CheckResources(c.kernel.symbol, usage->second, c.kernel.launch, limits);
    if (check.ok()) return task.space.ConfigToJson(c.config);
    last_reason = check.reason;
  }
  throw Error(fmt::format("compile: no default configuration of {} fits {} ({})",
                          OperatorToString(op), arch, last_reason));
}

}  // namespace glimpse
