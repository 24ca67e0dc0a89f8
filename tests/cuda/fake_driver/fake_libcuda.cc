// A stand-in for libcuda.so.1 that the driver-loader tests point GLIMPSE_CUDA_DRIVER at, so that
// the "no CUDA device" paths are exercised on machines without a GPU. It defines only what
// CudaDriver resolves before it counts devices; $GLIMPSE_FAKE_CUDA_MODE picks the behaviour:
//   init-error    cuInit returns CUDA_ERROR_NO_DEVICE (100), as on a machine with a driver but
//                 no usable GPU
//   zero-devices  cuInit succeeds, cuDeviceGetCount reports 0
//   one-device    one device, but none of the other functions exist (an incomplete driver)
// Built a second time with GLIMPSE_FAKE_CUDA_EMULATE as a driver that emulates a device (the end
// of this file).
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr int kSuccess = 0;
constexpr int kInvalidValue = 1;
constexpr int kNoDevice = 100;

const char* Mode() {
  const char* mode = std::getenv("GLIMPSE_FAKE_CUDA_MODE");
  return mode != nullptr ? mode : "";
}

}  // namespace

extern "C" {

int cuInit(unsigned int) { return std::strcmp(Mode(), "init-error") == 0 ? kNoDevice : kSuccess; }

int cuDeviceGetCount(int* count) {
  *count = std::strcmp(Mode(), "one-device") == 0 || std::strcmp(Mode(), "emulate") == 0 ? 1 : 0;
  return kSuccess;
}

int cuGetErrorName(int error, const char** text) {
  if (error == kNoDevice) {
    *text = "CUDA_ERROR_NO_DEVICE";
    return kSuccess;
  }
  if (error == 700) {
    *text = "CUDA_ERROR_ILLEGAL_ADDRESS";
    return kSuccess;
  }
  *text = nullptr;
  return kInvalidValue;
}

int cuGetErrorString(int error, const char** text) {
  if (error == kNoDevice) {
    *text = "no CUDA-capable device is detected";
    return kSuccess;
  }
  if (error == 700) {
    *text = "an illegal memory access was encountered";
    return kSuccess;
  }
  *text = nullptr;
  return kInvalidValue;
}

}  // extern "C"

#ifdef GLIMPSE_FAKE_CUDA_EMULATE
// The emulating variant (libglimpse_fake_gpu.so): with GLIMPSE_FAKE_CUDA_MODE=emulate it reports
// one device whose "memory" is host memory and whose "kernels" are host functions chosen by the
// symbol's name, so that the worker's whole protocol — checked run, timing, L2 flush, faults,
// hangs — runs on a machine without a GPU:
//   fake_dense    out[M,N] = A[M,K]·B[N,K]ᵀ with M,N,K from $GLIMPSE_FAKE_DENSE_MNK ("4,8,16")
//   fake_nothing  writes nothing (the output keeps the runner's NaN fill: a wrong answer)
//   fake_fault    the next synchronisation fails with CUDA_ERROR_ILLEGAL_ADDRESS (700), and so
//                 does every later call, as a real context stays broken after a fault
//   fake_hang     the next synchronisation never returns
//   fake_crash    the worker process dies (SIGSEGV), as a driver bug would take it down
//   fake_garbage  computes fake_dense, but first writes a line that is not JSON to the worker's
//                 standard output, where the runner reads its answer (once per process)
//   fake_melted   the same with an answer whose status no runner knows ({"status": "melted"})
// With $GLIMPSE_FAKE_CUDA_CONTEXT_FAILS set, cuCtxCreate fails (CUDA_ERROR_OUT_OF_MEMORY).
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

namespace {

bool broken = false;     // a fault happened: every call fails from now on
bool hang_next = false;  // the last launch was fake_hang

struct FakeFunction {
  char name[64];
};

bool Emulating() { return std::strcmp(Mode(), "emulate") == 0; }

int Status() { return broken ? 700 : kSuccess; }  // 700: CUDA_ERROR_ILLEGAL_ADDRESS

}  // namespace

extern "C" {

int cuDriverGetVersion(int* version) {
  *version = 13000;
  return kSuccess;
}
int cuDeviceGet(int* device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? kSuccess : kInvalidValue;
}
int cuDeviceGetName(char* name, int length, int) {
  std::snprintf(name, static_cast<size_t>(length), "Fake GPU");
  return kSuccess;
}
int cuDeviceGetAttribute(int* value, int attribute, int) {
  *value = attribute == 38 ? 1 << 20 : 0;  // CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: 1 MiB
  return kSuccess;
}
int cuDeviceTotalMem_v2(size_t* bytes, int) {
  *bytes = size_t{1} << 30;
  return kSuccess;
}
int cuCtxCreate_v2(void** context, unsigned int, int) {
  static int dummy;
  *context = &dummy;
  if (std::getenv("GLIMPSE_FAKE_CUDA_CONTEXT_FAILS") != nullptr) return 2;  // out of memory
  return Emulating() ? kSuccess : kNoDevice;
}
int cuCtxDestroy_v2(void*) { return kSuccess; }
int cuCtxSynchronize() {
  while (hang_next) std::this_thread::sleep_for(std::chrono::seconds(1));
  return Status();
}
int cuModuleLoadData(void** module, const void*) {
  static int dummy;
  *module = &dummy;
  return Status();
}
int cuModuleUnload(void*) { return kSuccess; }
int cuModuleGetFunction(FakeFunction** function, void*, const char* name) {
  *function = new FakeFunction{};
  std::snprintf((*function)->name, sizeof((*function)->name), "%s", name);
  return Status();
}
int cuMemAlloc_v2(unsigned long long* pointer, size_t bytes) {
  *pointer = reinterpret_cast<unsigned long long>(std::malloc(bytes));
  return Status();
}
int cuMemFree_v2(unsigned long long pointer) {
  std::free(reinterpret_cast<void*>(pointer));
  return kSuccess;
}
int cuMemcpyHtoD_v2(unsigned long long destination, const void* source, size_t bytes) {
  if (!broken) std::memcpy(reinterpret_cast<void*>(destination), source, bytes);
  return Status();
}
int cuMemcpyDtoH_v2(void* destination, unsigned long long source, size_t bytes) {
  if (!broken) std::memcpy(destination, reinterpret_cast<void*>(source), bytes);
  return Status();
}
int cuMemsetD8_v2(unsigned long long destination, unsigned char value, size_t bytes) {
  if (!broken) std::memset(reinterpret_cast<void*>(destination), value, bytes);
  return Status();
}
int cuLaunchKernel(FakeFunction* function, unsigned, unsigned, unsigned, unsigned, unsigned,
                   unsigned, unsigned, void*, void** parameters, void**) {
  if (broken) return Status();
  std::string name = function->name;
  if (name == "fake_fault") {
    broken = true;
    return kSuccess;  // as on a GPU: the fault surfaces at the next synchronisation
  }
  if (name == "fake_hang") {
    hang_next = true;
    return kSuccess;
  }
  if (name == "fake_crash") std::raise(SIGSEGV);
  static bool said = false;
  if ((name == "fake_garbage" || name == "fake_melted") && !said) {
    said = true;
    std::fputs(name == "fake_garbage" ? "}garbage{\n" : "{\"status\": \"melted\"}\n", stdout);
    std::fflush(stdout);
  }
  if (name == "fake_dense" || name == "fake_garbage" || name == "fake_melted") {
    int m = 0, n = 0, k = 0;
    const char* mnk = std::getenv("GLIMPSE_FAKE_DENSE_MNK");
    if (mnk == nullptr || std::sscanf(mnk, "%d,%d,%d", &m, &n, &k) != 3) return kInvalidValue;
    auto pointer = [&](int i) { return *static_cast<float**>(parameters[i]); };
    const float* a = pointer(0);
    const float* b = pointer(1);
    float* out = pointer(2);
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        float acc = 0;
        for (int p = 0; p < k; ++p) acc += a[i * k + p] * b[j * k + p];
        out[i * n + j] = acc;
      }
    }
  }
  return kSuccess;  // fake_nothing and any other name: nothing happens
}
int cuEventCreate(void** event, unsigned int) {
  static int dummy;
  *event = &dummy;
  return Status();
}
int cuEventDestroy_v2(void*) { return kSuccess; }
int cuEventRecord(void*, void*) { return Status(); }
int cuEventSynchronize(void*) { return cuCtxSynchronize(); }
int cuEventElapsedTime(float* milliseconds, void*, void*) {
  *milliseconds = 0.004f;  // 4 µs per "kernel"
  return Status();
}

}  // extern "C"
#endif  // GLIMPSE_FAKE_CUDA_EMULATE
