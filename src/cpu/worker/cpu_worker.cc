// glimpse_cpu_worker — the process in which CpuRunner runs candidate kernels, so that a crash or
// a hang takes down this process and never the tuner.
//
// The protocol is glimpse/worker_protocol.h's; the artifact is "/path/unit.so:symbol". Answers:
// ok, wrong-answer, or runtime-device (the library or symbol cannot be loaded). Inputs and the
// reference output are cached for the last operator.
// A kernel with a prepare step (<symbol>_prepared_size and <symbol>_prepare, kernel ABI in
// glimpse/cpu.h) is prepared once per request, untimed, from the constant inputs only (the others
// are passed as null), into a NaN-filled buffer; the kernel then gets that buffer after its inputs.
// Arguments: --cpus 0,1,… pins the process (and so its OpenMP threads) to those CPUs.
#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "glimpse/cache_flush.h"
#include "glimpse/error.h"
#include "glimpse/ops.h"
#include "glimpse/reference.h"
#include "glimpse/worker_protocol.h"

namespace glimpse::cpu {
namespace {

using KernelFn = void (*)(const float* const*, float*);
using PrepareFn = void (*)(const float* const*, float*);
using PreparedSizeFn = int64_t (*)();

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};

struct Data {
  std::string key;
  std::vector<std::vector<float>> inputs;
  std::vector<const float*> pointers;
  ReferenceResult reference;
  int64_t output_count = 0;
};

void Prepare(Data& data, const Operator& op, uint64_t seed) {
  std::string key = OperatorToString(op) + "#" + std::to_string(seed);
  if (data.key == key) return;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  data.inputs.clear();
  data.pointers.clear();
  for (const auto& shape : OperatorInputShapes(op)) {
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    std::vector<float> values(count);
    for (float& v : values) v = uniform(rng);
    data.inputs.push_back(std::move(values));
  }
  for (const auto& input : data.inputs) data.pointers.push_back(input.data());
  data.reference = ComputeReference(op, data.inputs);
  data.output_count = static_cast<int64_t>(data.reference.output.size());
  data.key = key;
}

using process::MeasureAnswer;
using process::MeasureRequest;

MeasureAnswer Failed(MeasureStatus status, std::string error) {
  MeasureAnswer answer;
  answer.status = status;
  answer.error = std::move(error);
  return answer;
}

MeasureAnswer Handle(const MeasureRequest& request, Data& data, CacheFlusher& flusher) {
  const Operator& op = request.op;
  Prepare(data, op, request.seed);
  flusher.Resize(std::max<int64_t>(request.flush_bytes, 0));

  const std::string& artifact = request.artifact;
  size_t colon = artifact.rfind(':');
  if (colon == std::string::npos) {
    return Failed(MeasureStatus::kRuntimeDevice, "artifact without ':symbol': " + artifact);
  }
  void* library = dlopen(artifact.substr(0, colon).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    return Failed(MeasureStatus::kRuntimeDevice, std::string("dlopen: ") + dlerror());
  }
  auto kernel = reinterpret_cast<KernelFn>(dlsym(library, artifact.substr(colon + 1).c_str()));
  if (kernel == nullptr) {
    std::string error = std::string("dlsym: ") + dlerror();
    dlclose(library);
    return Failed(MeasureStatus::kRuntimeDevice, error);
  }

  // The optional prepare step: both symbols or neither.
  const std::string symbol = artifact.substr(colon + 1);
  auto prepare = reinterpret_cast<PrepareFn>(dlsym(library, (symbol + "_prepare").c_str()));
  auto prepared_size =
      reinterpret_cast<PreparedSizeFn>(dlsym(library, (symbol + "_prepared_size").c_str()));
  if ((prepare == nullptr) != (prepared_size == nullptr)) {
    dlclose(library);
    return Failed(MeasureStatus::kRuntimeDevice,
                  "kernel " + symbol + " defines only one of _prepare and _prepared_size");
  }
  std::vector<const float*> pointers = data.pointers;
  std::unique_ptr<float, FreeDeleter> prepared;
  size_t prepared_bytes = 0;
  if (prepare != nullptr) {
    const int64_t floats = prepared_size();
    if (floats < 0 || floats > (int64_t{1} << 32)) {
      dlclose(library);
      return Failed(MeasureStatus::kRuntimeDevice,
                    "prepared size of " + std::to_string(floats) + " floats");
    }
    const size_t bytes = (static_cast<size_t>(floats) * sizeof(float) + 63) / 64 * 64;
    prepared_bytes = bytes;
    prepared.reset(static_cast<float*>(std::aligned_alloc(64, std::max<size_t>(bytes, 64))));
    std::fill_n(prepared.get(), floats, std::numeric_limits<float>::quiet_NaN());
    // Activations are hidden from the prepare step, so that it cannot do the kernel's work
    // outside the timed region.
    std::vector<const float*> constants = data.pointers;
    for (size_t i = 0; i < constants.size(); ++i) {
      if (!OperatorInputIsConstant(op, static_cast<int>(i))) constants[i] = nullptr;
    }
    prepare(constants.data(), prepared.get());
    pointers.push_back(prepared.get());
  }

  // NaN everywhere first, so that an element the kernel never writes cannot pass the check.
  std::vector<float> output(data.output_count, std::numeric_limits<float>::quiet_NaN());
  kernel(pointers.data(), output.data());
  int64_t bad = FirstMismatch(data.reference, output.data(), data.output_count,
                              OperatorReductionLength(op), request.rtol);
  if (bad >= 0) {
    dlclose(library);
    std::ostringstream error;
    error << "output element " << bad << " is " << output[bad] << ", expected "
          << data.reference.output[bad];
    return Failed(MeasureStatus::kWrongAnswer, error.str());
  }

  for (int i = 0; i < request.warmup; ++i) kernel(pointers.data(), output.data());
  // Everything the kernel reads or writes is flushed out of the caches before each timed run.
  std::vector<FlushedOperand> operands;
  for (const auto& input : data.inputs) {
    operands.push_back({input.data(), input.size() * sizeof(float)});
  }
  if (prepared) operands.push_back({prepared.get(), prepared_bytes});
  operands.push_back({output.data(), output.size() * sizeof(float)});
  // With warm_activations the activation inputs are then read back in, as a model's earlier layers
  // leave them for this one (the weights, the prepared data and the output stay cold).
  std::vector<FlushedOperand> activations;
  if (request.warm_activations) {
    for (size_t i = 0; i < data.inputs.size(); ++i) {
      if (OperatorInputIsConstant(op, static_cast<int>(i))) continue;
      activations.push_back({data.inputs[i].data(), data.inputs[i].size() * sizeof(float)});
    }
  }
  const int min_repeats = request.min_repeats;
  const int max_repeats = std::max(min_repeats, request.max_repeats);
  const double min_time_s = request.min_time_s;
  std::vector<double> samples;
  double total = 0;
  while (static_cast<int>(samples.size()) < max_repeats &&
         (static_cast<int>(samples.size()) < min_repeats || total < min_time_s)) {
    flusher.Flush(operands);
    flusher.Warm(activations);
    auto start = std::chrono::steady_clock::now();
    kernel(pointers.data(), output.data());
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    samples.push_back(seconds);
    total += seconds;
  }
  dlclose(library);
  MeasureAnswer answer;
  answer.status = MeasureStatus::kOk;
  answer.samples = std::move(samples);
  return answer;
}

void Pin(const std::string& list) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) CPU_SET(std::stoi(item), &set);
  }
  if (CPU_COUNT(&set) > 0) sched_setaffinity(0, sizeof(set), &set);
}

}  // namespace
}  // namespace glimpse::cpu

int main(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--cpus") glimpse::cpu::Pin(argv[i + 1]);
  }
  // Kernels use OpenMP; keeping its runtime loaded for good means that unloading a kernel never
  // unloads the code its idle thread pool is running.
  dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  std::cout << glimpse::process::ProtocolLine(
                   glimpse::process::WorkerHelloToJson(glimpse::process::WorkerHello{}))
            << std::endl;
  glimpse::cpu::Data data;
  glimpse::CacheFlusher flusher;
  glimpse::process::ServeRequests(std::cin, std::cout, [&](const auto& request) {
    return glimpse::cpu::Handle(request, data, flusher);
  });
  return 0;
}
