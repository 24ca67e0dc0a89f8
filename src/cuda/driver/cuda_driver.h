// The CUDA driver API, loaded at run time: dlopen("libcuda.so.1") and a table of the functions
// glimpse uses. Nothing links libcuda, so the same binaries run on a machine without an NVIDIA
// driver, where CudaDriver reports a typed "no CUDA device" condition instead of failing to load.
//
// The toolkit's cuda.h supplies the types only. Its macros rename many functions to versioned
// symbols (cuMemAlloc → cuMemAlloc_v2, cuCtxCreate → cuCtxCreate_v4 in CUDA 13); the table
// resolves the versioned symbols by name, choosing for each the oldest ABI whose signature it
// declares, so that any driver since CUDA 11 serves it. Member names avoid the cu* spellings,
// which cuda.h's macros would rewrite.
#pragma once

#if __has_include(<cuda.h>)
#include <cuda.h>
#else
// A build without the CUDA toolkit: the few driver types and constants used here, with the
// values of the driver's ABI (stable since CUDA 4), so that the runner still builds and reports
// what the loaded driver says.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
enum CUdevice_attribute : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
  CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
  CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
};
constexpr CUresult CUDA_SUCCESS = 0;
constexpr unsigned int CU_EVENT_DEFAULT = 0;
#endif

#include <string>

#include "glimpse/error.h"

namespace glimpse::cuda {

// Why CUDA cannot be used on this machine.
enum class NoDeviceReason {
  kNone,           // a driver and at least one device: usable
  kNoLibrary,      // libcuda.so.1 (or $GLIMPSE_CUDA_DRIVER) could not be loaded
  kInitFailed,     // cuInit returned an error (no device node, driver/library mismatch, …)
  kNoDevices,      // cuInit succeeded but the driver counts zero devices
  kMissingSymbol,  // the library lacks a function glimpse needs (a driver older than CUDA 11)
};
const char* NoDeviceReasonName(NoDeviceReason reason);  // "no-library", "init-failed", …

// Thrown when CUDA is needed and unavailable; what() is "no CUDA device: <why>".
class NoCudaDevice : public Error {
 public:
  NoCudaDevice(NoDeviceReason reason, const std::string& detail)
      : Error("no CUDA device: " + detail), reason_(reason) {}
  NoDeviceReason reason() const { return reason_; }

 private:
  NoDeviceReason reason_;
};

// A driver call that failed; what() is "<call>: <CUDA_ERROR_NAME> (<description>)".
class CudaCallError : public Error {
 public:
  CudaCallError(CUresult code, const std::string& name, const std::string& message)
      : Error(message), code_(code), name_(name) {}
  CUresult code() const { return code_; }
  const std::string& name() const { return name_; }  // "CUDA_ERROR_ILLEGAL_ADDRESS"

 private:
  CUresult code_;
  std::string name_;
};

// The driver's functions (signatures as in cuda.h; see the note above on versions).
struct CudaDriverApi {
  CUresult (*Init)(unsigned int flags) = nullptr;
  CUresult (*DriverGetVersion)(int* version) = nullptr;
  CUresult (*GetErrorName)(CUresult error, const char** text) = nullptr;
  CUresult (*GetErrorString)(CUresult error, const char** text) = nullptr;
  CUresult (*DeviceGetCount)(int* count) = nullptr;
  CUresult (*DeviceGet)(CUdevice* device, int ordinal) = nullptr;
  CUresult (*DeviceGetName)(char* name, int length, CUdevice device) = nullptr;
  CUresult (*DeviceGetAttribute)(int* value, CUdevice_attribute attribute,
                                 CUdevice device) = nullptr;
  CUresult (*DeviceTotalMem)(size_t* bytes, CUdevice device) = nullptr;
  CUresult (*CtxCreate)(CUcontext* context, unsigned int flags, CUdevice device) = nullptr;
  CUresult (*CtxDestroy)(CUcontext context) = nullptr;
  CUresult (*CtxSynchronize)() = nullptr;
  CUresult (*ModuleLoadData)(CUmodule* module, const void* image) = nullptr;
  CUresult (*ModuleUnload)(CUmodule module) = nullptr;
  CUresult (*ModuleGetFunction)(CUfunction* function, CUmodule module, const char* name) = nullptr;
  CUresult (*MemAlloc)(CUdeviceptr* pointer, size_t bytes) = nullptr;
  CUresult (*MemFree)(CUdeviceptr pointer) = nullptr;
  CUresult (*MemcpyHtoD)(CUdeviceptr destination, const void* source, size_t bytes) = nullptr;
  CUresult (*MemcpyDtoH)(void* destination, CUdeviceptr source, size_t bytes) = nullptr;
  CUresult (*MemsetD8)(CUdeviceptr destination, unsigned char value, size_t bytes) = nullptr;
  CUresult (*LaunchKernel)(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                           unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                           unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                           void** parameters, void** extra) = nullptr;
  CUresult (*EventCreate)(CUevent* event, unsigned int flags) = nullptr;
  CUresult (*EventDestroy)(CUevent event) = nullptr;
  CUresult (*EventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*EventSynchronize)(CUevent event) = nullptr;
  CUresult (*EventElapsedTime)(float* milliseconds, CUevent start, CUevent end) = nullptr;
};

// The loaded driver. Construction never throws and never aborts: it records why CUDA is
// unavailable instead. The library stays loaded for the life of the process (unloading libcuda
// while its threads run is unsafe), so a CudaDriver is cheap to make again.
class CudaDriver {
 public:
  // `library`: the path to load; empty: $GLIMPSE_CUDA_DRIVER when set, else "libcuda.so.1".
  explicit CudaDriver(std::string library = "");

  bool available() const { return reason_ == NoDeviceReason::kNone; }
  NoDeviceReason reason() const { return reason_; }
  // Why it is unavailable ("cannot load libcuda.so.1: …", "cuInit failed:
  // CUDA_ERROR_NO_DEVICE (…)", "the driver reports 0 devices"); empty when available.
  const std::string& unavailable_reason() const { return detail_; }
  const std::string& library() const { return library_; }
  int device_count() const { return device_count_; }
  int driver_version() const { return driver_version_; }  // 13000 for CUDA 13.0; 0 unknown

  // Throws NoCudaDevice when unavailable.
  void Require() const;
  // The table; Require()s first.
  const CudaDriverApi& api() const;

  // "CUDA_ERROR_ILLEGAL_ADDRESS" (or "CUresult 700" when the driver cannot name it).
  std::string ErrorName(CUresult code) const;
  // Throws CudaCallError naming `call` when `code` is not CUDA_SUCCESS.
  void Check(CUresult code, const char* call) const;

 private:
  std::string library_;
  NoDeviceReason reason_ = NoDeviceReason::kNone;
  std::string detail_;
  int device_count_ = 0;
  int driver_version_ = 0;
  CudaDriverApi api_;
};

}  // namespace glimpse::cuda
