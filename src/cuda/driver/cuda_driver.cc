#include "cuda/driver/cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <initializer_list>
#include <iterator>

#include "glimpse/enum_name.h"

namespace glimpse::cuda {

namespace {

// The first of `names` the library defines, or null.
void* Resolve(void* handle, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (void* symbol = dlsym(handle, name)) return symbol;
  }
  return nullptr;
}

template <typename Fn>
bool Bind(void* handle, Fn& slot, std::initializer_list<const char*> names, std::string& missing) {
  slot = reinterpret_cast<Fn>(Resolve(handle, names));
  if (slot == nullptr && missing.empty()) missing = *names.begin();
  return slot != nullptr;
}

}  // namespace

const char* NoDeviceReasonName(NoDeviceReason reason) {
  static constexpr const char* kNames[] = {"none", "no-library", "init-failed", "no-devices",
                                           "missing-symbol"};
  static_assert(std::size(kNames) == static_cast<size_t>(NoDeviceReason::kMissingSymbol) + 1);
  return EnumName(reason, kNames, "unknown");
}

CudaDriver::CudaDriver(std::string library) : library_(std::move(library)) {
  if (library_.empty()) {
    const char* env = std::getenv("GLIMPSE_CUDA_DRIVER");
    library_ = env != nullptr && *env != '\0' ? env : "libcuda.so.1";
  }
  // RTLD_NODELETE: the library is never unloaded (see the class comment).
  void* handle = dlopen(library_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == nullptr) {
    const char* why = dlerror();
    reason_ = NoDeviceReason::kNoLibrary;
    detail_ = "cannot load the CUDA driver library " + library_ + " (" +
              (why != nullptr ? why : "dlopen failed") + ")";
    return;
  }
  // What cuInit and the device count need comes first, so that a library which cannot even
  // initialise is reported as such rather than as incomplete.
  std::string missing;
  Bind(handle, api_.Init, {"cuInit"}, missing);
  Bind(handle, api_.GetErrorName, {"cuGetErrorName"}, missing);
  Bind(handle, api_.GetErrorString, {"cuGetErrorString"}, missing);
  Bind(handle, api_.DeviceGetCount, {"cuDeviceGetCount"}, missing);
  if (!missing.empty()) {
    reason_ = NoDeviceReason::kMissingSymbol;
    detail_ = library_ + " does not define " + missing + " (is it the NVIDIA driver library?)";
    return;
  }
  if (CUresult status = api_.Init(0); status != CUDA_SUCCESS) {
    reason_ = NoDeviceReason::kInitFailed;
    const char* text = nullptr;
    std::string description =
        api_.GetErrorString(status, &text) == CUDA_SUCCESS && text != nullptr ? text : "";
    detail_ = "cuInit failed: " + ErrorName(status) +
              (description.empty() ? "" : " (" + description + ")");
    return;
  }
  int count = 0;
  if (CUresult status = api_.DeviceGetCount(&count); status != CUDA_SUCCESS) {
    reason_ = NoDeviceReason::kInitFailed;
    detail_ = "cuDeviceGetCount failed: " + ErrorName(status);
    return;
  }
  if (count <= 0) {
    reason_ = NoDeviceReason::kNoDevices;
    detail_ = "the driver (" + library_ + ") reports 0 devices";
    return;
  }
  device_count_ = count;

  // Versioned names first where cuda.h maps the plain name to one; each listed alternative has
  // the signature declared in CudaDriverApi.
  Bind(handle, api_.DriverGetVersion, {"cuDriverGetVersion"}, missing);
  Bind(handle, api_.DeviceGet, {"cuDeviceGet"}, missing);
  Bind(handle, api_.DeviceGetName, {"cuDeviceGetName"}, missing);
  Bind(handle, api_.DeviceGetAttribute, {"cuDeviceGetAttribute"}, missing);
  Bind(handle, api_.DeviceTotalMem, {"cuDeviceTotalMem_v2"}, missing);
  // cuCtxCreate_v4 (CUDA 12.5+) takes a parameter struct; _v2 is the classic signature, which
  // drivers keep exporting for older programs.
  Bind(handle, api_.CtxCreate, {"cuCtxCreate_v2"}, missing);
  Bind(handle, api_.CtxDestroy, {"cuCtxDestroy_v2"}, missing);
  Bind(handle, api_.CtxSynchronize, {"cuCtxSynchronize"}, missing);
  Bind(handle, api_.ModuleLoadData, {"cuModuleLoadData"}, missing);
  Bind(handle, api_.ModuleUnload, {"cuModuleUnload"}, missing);
  Bind(handle, api_.ModuleGetFunction, {"cuModuleGetFunction"}, missing);
  Bind(handle, api_.MemAlloc, {"cuMemAlloc_v2"}, missing);
  Bind(handle, api_.MemFree, {"cuMemFree_v2"}, missing);
  Bind(handle, api_.MemcpyHtoD, {"cuMemcpyHtoD_v2"}, missing);
  Bind(handle, api_.MemcpyDtoH, {"cuMemcpyDtoH_v2"}, missing);
  Bind(handle, api_.MemsetD8, {"cuMemsetD8_v2"}, missing);
  Bind(handle, api_.LaunchKernel, {"cuLaunchKernel"}, missing);
  Bind(handle, api_.EventCreate, {"cuEventCreate"}, missing);
  Bind(handle, api_.EventDestroy, {"cuEventDestroy_v2"}, missing);
  Bind(handle, api_.EventRecord, {"cuEventRecord"}, missing);
  Bind(handle, api_.EventSynchronize, {"cuEventSynchronize"}, missing);
  // _v2 (CUDA 12.8+) has the same signature; older drivers have only the plain name.
  Bind(handle, api_.EventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"}, missing);
  if (!missing.empty()) {
    reason_ = NoDeviceReason::kMissingSymbol;
    detail_ = library_ + " does not define " + missing + " (a driver older than CUDA 11?)";
    device_count_ = 0;
    return;
  }
  if (api_.DriverGetVersion(&driver_version_) != CUDA_SUCCESS) driver_version_ = 0;
}

void CudaDriver::Require() const {
  if (!available()) throw NoCudaDevice(reason_, detail_);
}

const CudaDriverApi& CudaDriver::api() const {
  Require();
  return api_;
}

std::string CudaDriver::ErrorName(CUresult code) const {
  const char* name = nullptr;
  if (api_.GetErrorName != nullptr && api_.GetErrorName(code, &name) == CUDA_SUCCESS &&
      name != nullptr) {
    return name;
  }
  return "CUresult " + std::to_string(static_cast<int>(code));
}

void CudaDriver::Check(CUresult code, const char* call) const {
  if (code == CUDA_SUCCESS) return;
  std::string name = ErrorName(code);
  const char* text = nullptr;
  std::string message = std::string(call) + ": " + name;
  if (api_.GetErrorString != nullptr && api_.GetErrorString(code, &text) == CUDA_SUCCESS &&
      text != nullptr) {
    message += std::string(" (") + text + ")";
  }
  throw CudaCallError(code, name, message);
}

}  // namespace glimpse::cuda
