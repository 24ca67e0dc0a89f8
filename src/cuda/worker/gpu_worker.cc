// glimpse_gpu_worker — the process in which GpuRunner runs candidate CUDA kernels, so that a GPU
// fault (which leaves the CUDA context unusable) or a hang takes down this process and never the
// tuner. The protocol is glimpse/worker_protocol.h's, the artifact file
// cuda/driver/gpu_artifact.h's. Arguments: --device N (default 0).
//
// Per operator and seed the worker keeps, on the device, the inputs (uniform in [-1, 1], drawn as
// CpuRunner's worker draws them) and, on the host, the CPU reference of glimpse/reference.h. Per
// candidate: load the CUBIN, fill the prepared buffer and the output with NaN (0xff bytes), run
// the prepare kernel once, run the kernel once and compare the output with the reference, then
// warm up and time runs with CUDA events around the kernel launch alone; the L2 flush (a memset
// of flush_bytes) precedes the start event, so it is not timed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/driver/cuda_driver.h"
#include "cuda/driver/gpu_artifact.h"
#include "glimpse/error.h"
#include "glimpse/reference.h"
#include "glimpse/worker_protocol.h"

namespace glimpse::cuda {
namespace {

using process::MeasureAnswer;
using process::MeasureRequest;

// A CUDA failure in or around a kernel; `fatal` when the context may be unusable afterwards.
struct Failure {
  MeasureStatus status;  // runtime-device, wrong-answer
  std::string error;
  bool fatal = false;
};

class Worker {
 public:
  explicit Worker(const CudaDriver& driver) : driver_(driver), api_(driver.api()) {}

  // Creates the context; returns an error text, empty on success. `no_device` tells a device
  // that cannot be used at all (it does not exist) from a start that failed (a context that could
  // not be created, perhaps while a killed worker's context is still being torn down).
  std::string Start(int ordinal, bool& no_device) {
    no_device = true;
    if (ordinal < 0 || ordinal >= driver_.device_count()) {
      return "no CUDA device: device " + std::to_string(ordinal) + " does not exist; the " +
             "driver counts " + std::to_string(driver_.device_count());
    }
    try {
      driver_.Check(api_.DeviceGet(&device_, ordinal), "cuDeviceGet");
      char name[256] = {};
      driver_.Check(api_.DeviceGetName(name, sizeof(name) - 1, device_), "cuDeviceGetName");
      name_ = name;
      int l2 = 0;
      driver_.Check(api_.DeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device_),
                    "cuDeviceGetAttribute(L2_CACHE_SIZE)");
      l2_bytes_ = l2;
    } catch (const CudaCallError& error) {
      return std::string("no CUDA device: ") + error.what();
    }
    no_device = false;
    try {
      driver_.Check(api_.CtxCreate(&context_, 0, device_), "cuCtxCreate");
      driver_.Check(api_.EventCreate(&start_, CU_EVENT_DEFAULT), "cuEventCreate");
      driver_.Check(api_.EventCreate(&stop_, CU_EVENT_DEFAULT), "cuEventCreate");
    } catch (const CudaCallError& error) {
      return "cannot start CUDA on device " + std::to_string(ordinal) + " (" + name_ +
             "): " + error.what();
    }
    return "";
  }

  const std::string& name() const { return name_; }
  int64_t l2_bytes() const { return l2_bytes_; }

  MeasureAnswer Handle(const MeasureRequest& request) {
    try {
      return Measure(request);
    } catch (const Failure& failure) {
      MeasureAnswer answer;
      answer.status = failure.status;
      answer.error = failure.error;
      answer.fatal = failure.fatal;
      return answer;
    }
  }

 private:
  // Throws Failure (runtime-device) for a failed call; `fatal` as given.
  void Call(CUresult code, const char* call, bool fatal = true) {
    if (code == CUDA_SUCCESS) return;
    try {
      driver_.Check(code, call);
    } catch (const CudaCallError& error) {
      throw Failure{MeasureStatus::kRuntimeDevice, error.what(), fatal};
    }
  }

  CUdeviceptr Allocate(size_t bytes) {
    CUdeviceptr pointer = 0;
    Call(api_.MemAlloc(&pointer, std::max<size_t>(bytes, 4)), "cuMemAlloc");
    return pointer;
  }

  void Free(CUdeviceptr& pointer) {
    if (pointer != 0) api_.MemFree(pointer);
    pointer = 0;
  }

  // Inputs on the device and the reference, for the request's operator and seed.
  void PrepareData(const Operator& op, uint64_t seed) {
    std::string key = OperatorToString(op) + "#" + std::to_string(seed);
    if (key == data_key_) return;
    for (CUdeviceptr& input : inputs_) Free(input);
    inputs_.clear();
    Free(output_);
    data_key_.clear();
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<std::vector<float>> host;
    for (const auto& shape : OperatorInputShapes(op)) {
      int64_t count = 1;
      for (int64_t d : shape) count *= d;
      std::vector<float> values(static_cast<size_t>(count));
      for (float& v : values) v = uniform(rng);
      host.push_back(std::move(values));
    }
    reference_ = ComputeReference(op, host);
    for (const auto& values : host) {
      CUdeviceptr pointer = Allocate(values.size() * sizeof(float));
      inputs_.push_back(pointer);
      Call(api_.MemcpyHtoD(pointer, values.data(), values.size() * sizeof(float)), "cuMemcpyHtoD");
    }
    output_count_ = static_cast<int64_t>(reference_.output.size());
    output_ = Allocate(static_cast<size_t>(output_count_) * sizeof(float));
    data_key_ = key;
  }

  void Launch(CUfunction function, const std::array<int64_t, 3>& grid,
              const std::array<int64_t, 3>& block, std::vector<CUdeviceptr>& arguments,
              const char* what) {
    std::vector<void*> parameters;
    for (CUdeviceptr& argument : arguments) parameters.push_back(&argument);
    Call(api_.LaunchKernel(function, static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]),
                           static_cast<unsigned>(grid[2]), static_cast<unsigned>(block[0]),
                           static_cast<unsigned>(block[1]), static_cast<unsigned>(block[2]), 0,
                           nullptr, parameters.data(), nullptr),
         what);
  }

  MeasureAnswer Measure(const MeasureRequest& request) {
    if (request.warm_activations) {
      // No GPU runner asks for it: the L2 flush is the GPU protocol's only cache state.
      throw Failure{MeasureStatus::kRuntimeDevice,
                    "warm_activations is a CPU worker request field; the GPU worker measures with "
                    "the L2 flushed",
                    false};
    }
    GpuArtifact artifact;
    try {
      artifact = ReadGpuArtifact(request.artifact);
    } catch (const Error& error) {
      throw Failure{MeasureStatus::kRuntimeDevice, error.what(), false};
    }
    const int num_inputs = static_cast<int>(OperatorInputShapes(request.op).size());
    if (artifact.num_inputs != num_inputs) {
      throw Failure{MeasureStatus::kRuntimeDevice,
                    request.artifact + ": the kernel takes " + std::to_string(artifact.num_inputs) +
                        " inputs, the operator has " + std::to_string(num_inputs),
                    false};
    }
    std::ifstream in(artifact.cubin, std::ios::binary);
    std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in || image.empty()) {
      throw Failure{MeasureStatus::kRuntimeDevice, "cannot read the module image " + artifact.cubin,
                    false};
    }
    image.push_back('\0');  // PTX text must be NUL-terminated; a CUBIN ignores the extra byte
    PrepareData(request.op, request.seed);

    // Loading a module for the wrong architecture fails without harming the context.
    CUmodule module = nullptr;
    Call(api_.ModuleLoadData(&module, image.data()), "cuModuleLoadData", false);
    struct Unload {
      const CudaDriverApi& api;
      CUmodule module;
      CUdeviceptr* prepared;
      ~Unload() {
        if (*prepared != 0) api.MemFree(*prepared);
        api.ModuleUnload(module);
      }
    };
    CUdeviceptr prepared = 0;
    Unload unload{api_, module, &prepared};
    CUfunction kernel = nullptr;
    Call(api_.ModuleGetFunction(&kernel, module, artifact.symbol.c_str()), "cuModuleGetFunction",
         false);

    std::vector<CUdeviceptr> arguments(inputs_.begin(), inputs_.end());
    if (artifact.has_prepare) {
      CUfunction prepare = nullptr;
      Call(api_.ModuleGetFunction(&prepare, module, (artifact.symbol + "_prepare").c_str()),
           "cuModuleGetFunction(_prepare)", false);
      const size_t bytes = static_cast<size_t>(artifact.prepared_floats) * sizeof(float);
      prepared = Allocate(bytes);
      Call(api_.MemsetD8(prepared, 0xff, bytes), "cuMemsetD8");
      // Activations are hidden from the prepare kernel, so that it cannot do the kernel's work
      // outside the timed region.
      std::vector<CUdeviceptr> prepare_arguments = arguments;
      for (int i = 0; i < num_inputs; ++i) {
        if (!OperatorInputIsConstant(request.op, i)) prepare_arguments[i] = 0;
      }
      prepare_arguments.push_back(prepared);
      Launch(prepare, artifact.prepare_grid, artifact.prepare_block, prepare_arguments,
             "cuLaunchKernel(_prepare)");
      Call(api_.CtxSynchronize(), "cuCtxSynchronize (after the prepare kernel)");
      arguments.push_back(prepared);
    }
    arguments.push_back(output_);

    // The checked run: NaN everywhere first, so that an element never written cannot pass.
    const size_t output_bytes = static_cast<size_t>(output_count_) * sizeof(float);
    Call(api_.MemsetD8(output_, 0xff, output_bytes), "cuMemsetD8");
    Launch(kernel, artifact.grid, artifact.block, arguments, "cuLaunchKernel");
    Call(api_.CtxSynchronize(), "cuCtxSynchronize (after the kernel)");
    std::vector<float> output(static_cast<size_t>(output_count_));
    Call(api_.MemcpyDtoH(output.data(), output_, output_bytes), "cuMemcpyDtoH");
    int64_t bad = FirstMismatch(reference_, output.data(), output_count_,
                                OperatorReductionLength(request.op), request.rtol);
    if (bad >= 0) {
      std::ostringstream error;
      error << "output element " << bad << " is " << output[bad] << ", expected "
            << reference_.output[bad];
      throw Failure{MeasureStatus::kWrongAnswer, error.str(), false};
    }

    const size_t flush_bytes = request.flush_bytes > 0   ? static_cast<size_t>(request.flush_bytes)
                               : request.flush_bytes < 0 ? 0
                                                         : static_cast<size_t>(2 * l2_bytes_);
    if (flush_bytes != flush_size_) {
      Free(flush_);
      flush_size_ = 0;
      if (flush_bytes > 0) flush_ = Allocate(flush_bytes);
      flush_size_ = flush_bytes;
    }
    for (int i = 0; i < request.warmup; ++i) {
      Launch(kernel, artifact.grid, artifact.block, arguments, "cuLaunchKernel");
    }
    Call(api_.CtxSynchronize(), "cuCtxSynchronize (after the warm-up)");
    const int max_repeats = std::max(request.min_repeats, request.max_repeats);
    std::vector<double> samples;
    double total = 0;
    while (static_cast<int>(samples.size()) < max_repeats &&
           (static_cast<int>(samples.size()) < request.min_repeats || total < request.min_time_s)) {
      if (flush_size_ > 0) {
        // A different byte each round, so that no layer of the memory system can skip the write.
        Call(api_.MemsetD8(flush_, static_cast<unsigned char>(samples.size() & 0xff), flush_size_),
             "cuMemsetD8 (L2 flush)");
      }
      Call(api_.EventRecord(start_, nullptr), "cuEventRecord");
      Launch(kernel, artifact.grid, artifact.block, arguments, "cuLaunchKernel");
      Call(api_.EventRecord(stop_, nullptr), "cuEventRecord");
      Call(api_.EventSynchronize(stop_), "cuEventSynchronize");
      float milliseconds = 0;
      Call(api_.EventElapsedTime(&milliseconds, start_, stop_), "cuEventElapsedTime");
      samples.push_back(milliseconds * 1e-3);
      total += samples.back();
    }
    MeasureAnswer answer;
    answer.status = MeasureStatus::kOk;
    answer.samples = std::move(samples);
    return answer;
  }

  const CudaDriver& driver_;
  const CudaDriverApi& api_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUevent start_ = nullptr, stop_ = nullptr;
  std::string name_;
  int64_t l2_bytes_ = 0;
  std::string data_key_;
  std::vector<CUdeviceptr> inputs_;
  CUdeviceptr output_ = 0;
  int64_t output_count_ = 0;
  ReferenceResult reference_;
  CUdeviceptr flush_ = 0;
  size_t flush_size_ = 0;
};

void SayHello(const process::WorkerHello& hello) {
  std::cout << process::ProtocolLine(process::WorkerHelloToJson(hello)) << std::endl;
}

}  // namespace
}  // namespace glimpse::cuda

int main(int argc, char** argv) {
  using glimpse::process::WorkerHello;
  int ordinal = 0;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--device") ordinal = std::atoi(argv[i + 1]);
  }
  glimpse::cuda::CudaDriver driver;
  WorkerHello hello;
  if (!driver.available()) {
    hello.ready = false;
    hello.error = "no CUDA device: " + driver.unavailable_reason();
    hello.no_device = true;
    glimpse::cuda::SayHello(hello);
    return 0;
  }
  glimpse::cuda::Worker worker(driver);
  if (std::string error = worker.Start(ordinal, hello.no_device); !error.empty()) {
    hello.ready = false;
    hello.error = error;
    glimpse::cuda::SayHello(hello);
    return 0;
  }
  hello.device = worker.name();
  hello.l2_bytes = worker.l2_bytes();
  glimpse::cuda::SayHello(hello);
  // After a fatal answer (a fault left the context unusable) the worker ends here, so that the
  // runner starts a fresh one.
  glimpse::process::ServeRequests(std::cin, std::cout,
                                  [&](const auto& request) { return worker.Handle(request); });
  return 0;
}
