// The static validity check of CUDA kernels against device limits: before compiling (the launch
// and the declared shared memory) and after (ptxas' registers and shared memory).
#include <sstream>

#include "glimpse/cuda.h"

namespace glimpse {

namespace {

const char* const kAxis[3] = {"x", "y", "z"};

// The first broken launch limit of `launch`, or "" when there is none; `what` names the kernel.
std::string LaunchProblem(const std::string& what, const CudaLaunch& launch,
                          const GpuLimits& limits) {
  std::ostringstream reason;
  for (int axis = 0; axis < 3; ++axis) {
    if (launch.block[axis] < 1) {
      reason << what << ": block dimension " << kAxis[axis] << " is " << launch.block[axis]
             << "; it must be at least 1";
      return reason.str();
    }
    if (launch.grid[axis] < 1) {
      reason << what << ": grid dimension " << kAxis[axis] << " is " << launch.grid[axis]
             << "; it must be at least 1";
      return reason.str();
    }
  }
  if (launch.ThreadsPerBlock() > limits.max_threads_per_block) {
    reason << what << ": block of " << launch.ThreadsPerBlock() << " threads exceeds the device's "
           << limits.max_threads_per_block << " per block";
    return reason.str();
  }
  for (int axis = 0; axis < 3; ++axis) {
    if (launch.block[axis] > limits.max_block_dims[axis]) {
      reason << what << ": block dimension " << kAxis[axis] << " of " << launch.block[axis]
             << " threads exceeds the device's " << limits.max_block_dims[axis];
      return reason.str();
    }
    if (launch.grid[axis] > limits.max_grid_dims[axis]) {
      reason << what << ": grid dimension " << kAxis[axis] << " of " << launch.grid[axis]
             << " blocks exceeds the device's " << limits.max_grid_dims[axis];
      return reason.str();
    }
  }
  return "";
}

}  // namespace

int64_t RegistersPerBlock(int registers_per_thread, int64_t threads, const GpuLimits& limits) {
  const int64_t unit = limits.register_allocation_unit;
  const int64_t per_warp =
      (int64_t{registers_per_thread} * limits.warp_size + unit - 1) / unit * unit;
  const int64_t warps = (threads + limits.warp_size - 1) / limits.warp_size;
  return per_warp * warps;
}

GpuCheck CheckLaunch(const CudaKernel& kernel, const GpuLimits& limits) {
  GpuCheck check;
  std::string problem = LaunchProblem("kernel '" + kernel.symbol + "'", kernel.launch, limits);
  if (problem.empty() && kernel.has_prepare) {
    problem = LaunchProblem("prepare kernel '" + kernel.symbol + "_prepare'", kernel.prepare_launch,
                            limits);
  }
  if (problem.empty() && kernel.static_shared_bytes > limits.max_static_shared_per_block) {
    problem = "kernel '" + kernel.symbol + "': " + std::to_string(kernel.static_shared_bytes) +
              " bytes of static shared memory exceed the device's " +
              std::to_string(limits.max_static_shared_per_block) + " per block";
  }
  if (!problem.empty()) {
    check.status = MeasureStatus::kInstantiation;
    check.reason = std::move(problem);
  }
  return check;
}

GpuCheck CheckResources(const std::string& symbol, const CudaResourceUsage& usage,
                        const CudaLaunch& launch, const GpuLimits& limits) {
  GpuCheck check;
  std::ostringstream reason;
  const int64_t threads = launch.ThreadsPerBlock();
  const int64_t block_registers = RegistersPerBlock(usage.registers, threads, limits);
  if (usage.registers > limits.max_registers_per_thread) {
    reason << "kernel '" << symbol << "': " << usage.registers
           << " registers per thread exceed the device's " << limits.max_registers_per_thread;
  } else if (block_registers > limits.registers_per_block) {
    reason << "kernel '" << symbol << "': " << usage.registers << " registers × " << threads
           << " threads take " << block_registers << " registers (allocated per warp in units of "
           << limits.register_allocation_unit << "), more than the device's "
           << limits.registers_per_block << " per block";
  } else if (usage.shared_bytes > limits.max_static_shared_per_block) {
    reason << "kernel '" << symbol << "': ptxas reports " << usage.shared_bytes
           << " bytes of static shared memory, more than the device's "
           << limits.max_static_shared_per_block << " per block";
  }
  if (!reason.str().empty()) {
    check.status = MeasureStatus::kCompileDevice;
    check.reason = reason.str();
  }
  if (usage.spill_stores > 0 || usage.spill_loads > 0) {
    check.note = "kernel '" + symbol + "' spills " + std::to_string(usage.spill_stores) +
                 " bytes stores, " + std::to_string(usage.spill_loads) + " bytes loads per thread";
  }
  return check;
}

}  // namespace glimpse
