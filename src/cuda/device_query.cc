// The live device: its attributes through the driver API (cuda/driver/cuda_driver.h), and the
// limits the builder's static checks use.
#include <algorithm>
#include <type_traits>

#include "cuda/driver/cuda_driver.h"
#include "glimpse/cuda.h"
#include "glimpse/error.h"

namespace glimpse {

Json CudaDeviceInfo::ToJson() const {
  return {{"ordinal", ordinal},
          {"name", name},
          {"compute_capability", std::to_string(cc_major) + "." + std::to_string(cc_minor)},
          {"arch", Arch()},
          {"sm_count", sm_count},
          {"sm_clock_khz", sm_clock_khz},
          {"memory_clock_khz", memory_clock_khz},
          {"memory_bus_bits", memory_bus_bits},
          {"memory_bytes", memory_bytes},
          {"l2_bytes", l2_bytes},
          {"shared_per_block", shared_per_block},
          {"shared_per_block_optin", shared_per_block_optin},
          {"shared_per_sm", shared_per_sm},
          {"registers_per_block", registers_per_block},
          {"registers_per_sm", registers_per_sm},
          {"max_threads_per_block", max_threads_per_block},
          {"max_threads_per_sm", max_threads_per_sm},
          {"max_blocks_per_sm", max_blocks_per_sm},
          {"max_block_dims", max_block_dims},
          {"max_grid_dims", max_grid_dims},
          {"warp_size", warp_size},
          {"driver_version", driver_version}};
}

std::string CudaUnavailableReason() {
  cuda::CudaDriver driver;
  return driver.available() ? "" : "no CUDA device: " + driver.unavailable_reason();
}

CudaDeviceInfo QueryCudaDevice(int ordinal) {
  cuda::CudaDriver driver;
  const cuda::CudaDriverApi& api = driver.api();  // throws NoCudaDevice
  if (ordinal < 0 || ordinal >= driver.device_count()) {
    throw Error("CUDA device " + std::to_string(ordinal) + " does not exist; the driver counts " +
                std::to_string(driver.device_count()) + " (ordinals 0.." +
                std::to_string(driver.device_count() - 1) + ")");
  }
  CUdevice device = 0;
  driver.Check(api.DeviceGet(&device, ordinal), "cuDeviceGet");
  CudaDeviceInfo info;
  info.ordinal = ordinal;
  char name[256] = {};
  driver.Check(api.DeviceGetName(name, sizeof(name) - 1, device), "cuDeviceGetName");
  info.name = name;
  size_t bytes = 0;
  driver.Check(api.DeviceTotalMem(&bytes, device), "cuDeviceTotalMem");
  info.memory_bytes = static_cast<int64_t>(bytes);
  // An attribute a driver does not know (or no longer reports, as some clocks) stays 0.
  auto attribute = [&](CUdevice_attribute which) -> int64_t {
    int value = 0;
    return api.DeviceGetAttribute(&value, which, device) == CUDA_SUCCESS ? value : 0;
  };
  info.cc_major = static_cast<int>(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
  info.cc_minor = static_cast<int>(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
  info.sm_count = static_cast<int>(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  info.sm_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  info.memory_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  info.memory_bus_bits = static_cast<int>(attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH));
  info.l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  info.shared_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  info.shared_per_block_optin = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  info.shared_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  info.registers_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  info.registers_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  info.max_threads_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  info.max_threads_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  info.max_blocks_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  info.max_block_dims = {attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
                         attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                         attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)};
  info.max_grid_dims = {attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
                        attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                        attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)};
  info.warp_size = static_cast<int>(attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE));
  info.driver_version = driver.driver_version();
  return info;
}

GpuLimits ToGpuLimits(const CudaDeviceInfo& info) {
  GpuLimits limits;
  const std::string arch = info.Arch();
  const std::vector<std::string> known = KnownGpuArchs();
  if (std::find(known.begin(), known.end(), arch) != known.end()) {
    limits = GpuLimitsForArch(arch);
  }
  limits.arch = arch;
  limits.cc_major = info.cc_major;
  limits.cc_minor = info.cc_minor;
  // Only what the device reports replaces the table's figure.
  auto take = [](auto& field, int64_t value) {
    if (value > 0) field = static_cast<std::remove_reference_t<decltype(field)>>(value);
  };
  take(limits.warp_size, info.warp_size);
  take(limits.max_threads_per_block, info.max_threads_per_block);
  for (int i = 0; i < 3; ++i) {
    take(limits.max_block_dims[i], info.max_block_dims[i]);
    take(limits.max_grid_dims[i], info.max_grid_dims[i]);
  }
  take(limits.max_static_shared_per_block, info.shared_per_block);
  take(limits.max_optin_shared_per_block, info.shared_per_block_optin);
  take(limits.shared_per_sm, info.shared_per_sm);
  take(limits.registers_per_sm, info.registers_per_sm);
  take(limits.registers_per_block, info.registers_per_block);
  take(limits.max_threads_per_sm, info.max_threads_per_sm);
  take(limits.max_blocks_per_sm, info.max_blocks_per_sm);
  take(limits.sm_count, info.sm_count);
  take(limits.memory_bytes, info.memory_bytes);
  take(limits.l2_bytes, info.l2_bytes);
  return limits;
}

std::optional<std::string> LocalCudaArch() {
  try {
    cuda::CudaDriver driver;
    if (!driver.available()) return std::nullopt;
    return QueryCudaDevice(0).Arch();
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace glimpse
