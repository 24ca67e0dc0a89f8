// gpu_peak — the measured FP32 peak of an NVIDIA GPU, the ceiling glimpse's tuned CUDA kernels and
// the vendor libraries (bench/gpu_baselines.py) are read against.
//
//   gpu_peak [--device N] [--json OUT]          measure on device N (default 0)
//   gpu_peak --compile-only [--arch sm_90]      compile the kernel with NVRTC, report, no device
//
// The kernel runs kChains independent chains of FP32 fused multiply-adds per thread (acc = acc · a
// + b, all in registers), enough that the FMA latency is hidden by instruction-level parallelism
// even at low occupancy, on a grid that fills every SM to its thread limit. Each FMA is 2 flops.
// It is built with glimpse's own NVRTC path (CompileCuda) and launched through the CUDA driver
// loaded at run time (cuda/driver/cuda_driver.h), exactly as tuned kernels are, so the binary
// starts on a machine without a driver and says so.
//
// Protocol (../shared/DESIGN.md): one launch calibrates the iteration count so that a launch takes
// about kTargetLaunchS; then kWarmupS of untimed launches; then launches timed with CUDA events
// until at least kMinRepeats samples and kMinTotalS of summed time (at most kMaxRepeats). The
// median is the figure; the fastest sample and every sample are kept. Thread 0's result (and the
// last thread's) is checked against the same recurrence computed on the host (std::fma in float).
//
// Exit status: 0 measured (or compiled); 1 the kernel did not compile, a CUDA call failed or the
// check failed; 2 a usage error, or no CUDA device ("no CUDA device: <why>" on stderr).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cuda/driver/cuda_driver.h"
#include "glimpse/cuda.h"
#include "glimpse/error.h"
#include "glimpse/json.h"

namespace glimpse {
namespace {

constexpr int kChains = 8;   // independent FMA chains per thread
constexpr int kUnroll = 16;  // FMAs per chain per loop iteration (unrolled)
constexpr int kBlockThreads = 256;
constexpr float kA = 0.9999f;  // acc · a + b converges to b / (1 − a) = 1: no overflow or NaN
constexpr float kB = 1e-4f;
constexpr double kTargetLaunchS = 2e-3;  // as long as a typical operator call
constexpr double kWarmupS = 0.2;         // untimed launches first, so the clocks leave idle
constexpr int kMinRepeats = 25;
constexpr double kMinTotalS = 0.05;
constexpr int kMaxRepeats = 200;

const char* const kUsage =
    "usage: gpu_peak [--device N] [--json OUT]\n"
    "       gpu_peak --compile-only [--arch sm_XY]   (default sm_90; no device needed)\n";

// Chain j of thread t starts at t · 1e-6 + j · 1e-3 (one explicit FMA, so that the host can repeat
// it bit for bit), so that chains differ and the compiler cannot merge them; the sum of the chains
// is stored so that none is dead code.
std::string KernelSource() {
  std::string code =
      "extern \"C\" __global__ void fma_peak(float* out, float a, float b, int iterations) {\n"
      "  const int t = blockIdx.x * blockDim.x + threadIdx.x;\n";
  for (int j = 0; j < kChains; ++j) {
    code += "  float x" + std::to_string(j) + " = fmaf((float)t, 1e-6f, " + std::to_string(j) +
            " * 1e-3f);\n";
  }
  code += "  for (int i = 0; i < iterations; ++i) {\n#pragma unroll\n";
  code += "    for (int u = 0; u < " + std::to_string(kUnroll) + "; ++u) {\n";
  for (int j = 0; j < kChains; ++j) {
    const std::string x = "x" + std::to_string(j);
    code += "      " + x + " = fmaf(" + x + ", a, b);\n";
  }
  code += "    }\n  }\n  out[t] = ";
  for (int j = 0; j < kChains; ++j) code += (j ? " + x" : "x") + std::to_string(j);
  code += ";\n}\n";
  return code;
}

// What thread `t` stores, computed on the host with the kernel's operations in the same order.
float HostResult(int t, int iterations) {
  float sum = 0.0f;
  for (int j = 0; j < kChains; ++j) {
    float x = std::fma(static_cast<float>(t), 1e-6f, static_cast<float>(j) * 1e-3f);
    for (int i = 0; i < iterations * kUnroll; ++i) x = std::fma(x, kA, kB);
    sum = j == 0 ? x : sum + x;
  }
  return sum;
}

// FP32 lanes per SM by compute capability (CUDA programming guide, arithmetic throughput table);
// 0 where not known, and then no theoretical peak is printed.
int Fp32LanesPerSm(int major, int minor) {
  if (major == 7) return 64;
  if (major == 8) return minor == 0 ? 64 : 128;
  if (major == 9 || major == 10 || major == 12) return 128;
  return 0;
}

// The kernel did not compile (exit status 1, unlike a usage error).
class CompileFailure : public Error {
 public:
  using Error::Error;
};

CudaCompileResult Compile(const std::string& arch) {
  CudaCompileResult result = CompileCuda(KernelSource(), arch);
  if (!result.ok) {
    throw CompileFailure("the FMA kernel did not compile for " + arch +
                         (result.timed_out ? " (timed out)" : "") + ":\n" + result.log);
  }
  return result;
}

int CompileOnly(const std::string& arch) {
  if (!NvrtcAvailable()) {
    std::cerr << "gpu_peak: NVRTC not available in this build\n";
    return 1;
  }
  CudaCompileResult result = Compile(arch);
  const CudaResourceUsage usage = result.resources["fma_peak"];
  std::cout << "fma_peak compiled for " << arch << ": " << usage.registers << " registers, "
            << usage.spill_stores << " bytes spill stores, " << result.cubin.size()
            << " bytes of CUBIN (NVRTC " << NvrtcVersion() << ", " << kChains << " chains × "
            << kUnroll << " unrolled FMAs per iteration)\n";
  if (usage.spill_stores > 0) {
    std::cerr << "gpu_peak: the kernel spills registers; the peak would be understated\n";
    return 1;
  }
  return 0;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

int Measure(int ordinal, const std::string& json_out) {
  cuda::CudaDriver driver;
  if (!driver.available()) {
    std::cerr << "no CUDA device: " << driver.unavailable_reason() << "\n";
    return 2;
  }
  const CudaDeviceInfo info = QueryCudaDevice(ordinal);
  const std::string arch = info.Arch();
  const CudaCompileResult compiled = Compile(arch);
  const int registers =
      compiled.resources.count("fma_peak") ? compiled.resources.at("fma_peak").registers : 0;

  const cuda::CudaDriverApi& api = driver.api();
  CUdevice device = 0;
  driver.Check(api.DeviceGet(&device, ordinal), "cuDeviceGet");
  CUcontext context = nullptr;
  driver.Check(api.CtxCreate(&context, 0, device), "cuCtxCreate");
  CUmodule module = nullptr;
  driver.Check(api.ModuleLoadData(&module, compiled.cubin.data()), "cuModuleLoadData");
  CUfunction function = nullptr;
  driver.Check(api.ModuleGetFunction(&function, module, "fma_peak"), "cuModuleGetFunction");

  // Every SM full: as many 256-thread blocks as its thread limit allows.
  const int64_t blocks_per_sm = std::max<int64_t>(1, info.max_threads_per_sm / kBlockThreads);
  const int64_t blocks = blocks_per_sm * info.sm_count;
  const int64_t threads = blocks * kBlockThreads;
  CUdeviceptr out = 0;
  driver.Check(api.MemAlloc(&out, threads * sizeof(float)), "cuMemAlloc");
  CUevent start = nullptr, stop = nullptr;
  driver.Check(api.EventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  driver.Check(api.EventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");

  float a = kA, b = kB;
  int iterations = 64;
  auto launch = [&]() -> double {  // seconds, from CUDA events around the launch alone
    void* parameters[] = {&out, &a, &b, &iterations};
    driver.Check(api.EventRecord(start, nullptr), "cuEventRecord");
    driver.Check(api.LaunchKernel(function, static_cast<unsigned>(blocks), 1, 1, kBlockThreads, 1,
                                  1, 0, nullptr, parameters, nullptr),
                 "cuLaunchKernel");
    driver.Check(api.EventRecord(stop, nullptr), "cuEventRecord");
    driver.Check(api.EventSynchronize(stop), "cuEventSynchronize");
    float ms = 0.0f;
    driver.Check(api.EventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
    return ms * 1e-3;
  };
  launch();  // first launch: module and context set-up
  // Events resolve about 0.5 µs: a shorter calibration counts as 1 µs.
  const double calibration_s = std::max(launch(), 1e-6);
  iterations = static_cast<int>(std::clamp(iterations * kTargetLaunchS / calibration_s, 16.0, 1e6));

  for (double warm = 0.0; warm < kWarmupS;) warm += launch();
  std::vector<double> samples;
  double total = 0.0;
  while (samples.size() < static_cast<size_t>(kMinRepeats) ||
         (total < kMinTotalS && samples.size() < static_cast<size_t>(kMaxRepeats))) {
    samples.push_back(launch());
    total += samples.back();
  }

  std::vector<float> host(threads);
  driver.Check(api.MemcpyDtoH(host.data(), out, threads * sizeof(float)), "cuMemcpyDtoH");
  bool check_passed = true;
  std::string check_text;
  for (int t : {0, static_cast<int>(threads - 1)}) {
    const float expected = HostResult(t, iterations);
    // Every operation is an explicit FMA or an add in the same order: only a broken kernel or
    // launch differs by more than rounding (a few ulps allowed for the sum).
    if (!(std::fabs(host[t] - expected) <= 1e-6f * std::fabs(expected))) {
      check_passed = false;
      check_text += "thread " + std::to_string(t) + ": " + std::to_string(host[t]) + ", expected " +
                    std::to_string(expected) + "; ";
    }
  }

  api.EventDestroy(start);
  api.EventDestroy(stop);
  api.MemFree(out);
  api.ModuleUnload(module);
  api.CtxDestroy(context);

  const double flops = 2.0 * kChains * kUnroll * static_cast<double>(iterations) * threads;
  const double median_s = Median(samples);
  const double fastest_s = *std::min_element(samples.begin(), samples.end());
  const int lanes = Fp32LanesPerSm(info.cc_major, info.cc_minor);
  // Boost clock as the driver reports it (kHz); 2 flops per FMA lane per cycle.
  const double theoretical = lanes && info.sm_clock_khz
                                 ? 2.0 * lanes * info.sm_count * info.sm_clock_khz * 1e3 / 1e9
                                 : 0.0;
  std::printf("device %d: %s (%s, %d SMs, %.0f MHz boost clock, driver %d)\n", ordinal,
              info.name.c_str(), arch.c_str(), info.sm_count, info.sm_clock_khz / 1e3,
              info.driver_version);
  std::printf(
      "kernel: %lld blocks × %d threads, %d chains × %d FMAs × %d iterations, %d registers"
      "\n",
      static_cast<long long>(blocks), kBlockThreads, kChains, kUnroll, iterations, registers);
  std::printf(
      "FP32 FMA peak: %.1f GFLOP/s median of %zu samples (%.3f ms each), %.1f GFLOP/s "
      "fastest sample\n",
      flops / median_s / 1e9, samples.size(), median_s * 1e3, flops / fastest_s / 1e9);
  if (theoretical > 0) {
    std::printf(
        "theoretical: %.1f GFLOP/s (2 × %d lanes × %d SMs × boost clock); measured median "
        "%.0f %%\n",
        theoretical, lanes, info.sm_count, 100.0 * flops / median_s / 1e9 / theoretical);
  }
  std::printf("check: %s\n", check_passed ? "passed" : ("FAILED: " + check_text).c_str());

  if (!json_out.empty()) {
    Json samples_s = Json::array();
    for (double s : samples) samples_s.push_back(s);
    Json result = {{"device", info.ToJson()},
                   {"kernel",
                    {{"blocks", blocks},
                     {"block_threads", kBlockThreads},
                     {"chains", kChains},
                     {"unroll", kUnroll},
                     {"iterations", iterations},
                     {"registers", registers},
                     {"nvrtc", NvrtcVersion()}}},
                   {"flops_per_launch", flops},
                   {"median_s", median_s},
                   {"gflops_median", flops / median_s / 1e9},
                   {"gflops_fastest", flops / fastest_s / 1e9},
                   {"theoretical_gflops", theoretical},
                   {"samples_s", samples_s},
                   {"check_passed", check_passed}};
    std::ofstream file(json_out);
    if (!file || !(file << result.dump(1) << "\n")) throw Error("cannot write '" + json_out + "'");
  }
  return check_passed ? 0 : 1;
}

int Main(int argc, char** argv) {
  bool compile_only = false;
  std::string arch = "sm_90", json_out;
  int device = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--compile-only") {
      compile_only = true;
    } else if (arg == "--arch") {
      arch = value();
    } else if (arg == "--json") {
      json_out = value();
    } else if (arg == "--device") {
      const std::string text = value();
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
        throw Error("--device '" + text + "': expected a device ordinal (0, 1, …)");
      }
      device = std::stoi(text);
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    } else {
      throw Error("unknown argument '" + arg +
                  "'; known: --device, --json, --compile-only, --arch, --help");
    }
  }
  return compile_only ? CompileOnly(arch) : Measure(device, json_out);
}

}  // namespace
}  // namespace glimpse

int main(int argc, char** argv) {
  try {
    return glimpse::Main(argc, argv);
  } catch (const glimpse::cuda::NoCudaDevice& error) {
    std::cerr << error.what() << "\n";
    return 2;
  } catch (const glimpse::cuda::CudaCallError& error) {
    std::cerr << "gpu_peak: " << error.what() << "\n";
    return 1;
  } catch (const glimpse::CompileFailure& error) {
    std::cerr << "gpu_peak: " << error.what() << "\n";
    return 1;
  } catch (const glimpse::Error& error) {  // a usage error (bad argument or --arch)
    std::cerr << "gpu_peak: " << error.what() << "\n" << glimpse::kUsage;
    return 2;
  }
}
