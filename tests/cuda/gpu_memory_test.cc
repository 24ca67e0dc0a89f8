// What a CUDA task holds in memory, and the refusals before building: the device's share (tensors
// and the L2 flush), the worker's host share (inputs, output, reference), and a configuration's
// prepared workspace. No GPU is needed: the device is described, not queried.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "glimpse/build_support.h"
#include "glimpse/cuda.h"
#include "glimpse/error.h"
#include "glimpse/random.h"
#include "test_paths.h"

namespace glimpse {
namespace {

constexpr double kMiB = 1024.0 * 1024;
constexpr double kGiB = 1024.0 * kMiB;

CudaDeviceInfo SmallDevice(int64_t memory_bytes, int64_t l2_bytes) {
  CudaDeviceInfo device;
  device.name = "Test GPU";
  device.cc_major = 9;
  device.cc_minor = 0;
  device.memory_bytes = memory_bytes;
  device.l2_bytes = l2_bytes;
  return device;
}

std::string RefusalOf(const Target& target, const Operator& op) {
  try {
    target.MakeTask(op);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(GpuMemoryTest, DeviceBytesAreTheTensorsAndTheFlushHostBytesTheReference) {
  // 2 × 1024·512 input floats (4 MiB), a 1024² output (4 MiB), its reference 16 MiB.
  const Operator op = ParseOperator("dense:M=1024,N=1024,K=512");
  const MeasurementBytes device = GpuMeasurementDeviceBytes(op, int64_t{50} << 20);
  EXPECT_DOUBLE_EQ(device.tensors.inputs, 4 * kMiB);
  EXPECT_DOUBLE_EQ(device.tensors.output, 4 * kMiB);
  EXPECT_DOUBLE_EQ(device.reference, 0.0);
  EXPECT_DOUBLE_EQ(device.flush, 100 * kMiB);  // 2 × L2, the worker's default
  EXPECT_DOUBLE_EQ(GpuMeasurementDeviceBytes(op, int64_t{50} << 20, 4096).flush, 4096.0);
  EXPECT_DOUBLE_EQ(GpuMeasurementDeviceBytes(op, int64_t{50} << 20, -1).flush, 0.0);
  const MeasurementBytes host = GpuMeasurementHostBytes(op);
  EXPECT_DOUBLE_EQ(host.tensors.Total(), 8 * kMiB);
  EXPECT_DOUBLE_EQ(host.reference, 16 * kMiB);
  EXPECT_DOUBLE_EQ(host.flush, 0.0);
}

TEST(GpuMemoryTest, ATaskWhoseMeasurementDoesNotFitTheDeviceIsRefusedNamingTheFlush) {
  CudaTargetOptions options;
  options.arch = "sm_90";
  // 1 GiB of device memory, 256 MiB of L2 (a 512-MiB flush).
  const CudaTarget target(options, SmallDevice(int64_t{1} << 30, int64_t{256} << 20));
  // Tensors of 0.75 GiB fit on their own; with the flush they do not.
  const Operator op = ParseOperator("dense:M=8192,N=8192,K=8192");
  const std::string refusal = RefusalOf(target, op);
  EXPECT_NE(refusal.find(OperatorToString(op) + ": measuring it takes 1.2 GiB (its tensors "
                                                "768.0 MiB, the cache flush 512.0 MiB), more "
                                                "than the 1.0 GiB of Test GPU's memory"),
            std::string::npos)
      << refusal;
  // Tensors alone too large: the tensors' message.
  const std::string huge =
      RefusalOf(target, ParseOperator("conv2d:N=64,C=512,H=224,W=224,K=512,R=3,S=3,pad=1"));
  EXPECT_NE(huge.find("its tensors take"), std::string::npos) << huge;
  EXPECT_NE(huge.find("Test GPU's memory (cuDeviceTotalMem)"), std::string::npos) << huge;
  // What fits is a task.
  EXPECT_EQ(RefusalOf(target, ParseOperator("dense:M=1024,N=1024,K=512")), "");
  // A build-only run has no device memory to respect.
  options.build_only = true;
  const CudaTarget build_only(options, std::nullopt);
  EXPECT_EQ(RefusalOf(build_only, op), "");
}

TEST(GpuMemoryTest, ATaskWhoseReferenceDoesNotFitTheHostIsRefused) {
  CudaTargetOptions options;
  options.arch = "sm_90";
  // A device with room for anything. The host holds 4 + 16 bytes per output element (the copy
  // and the reference): an outer product with usable/10 output elements has tensors that fit
  // this machine (0.4 of it) and a measurement that does not (2.0 of it).
  const CudaTarget target(options, SmallDevice(int64_t{1} << 56, int64_t{50} << 20));
  const double usable = static_cast<double>(process::UsableMemoryBytes());
  const int64_t side = static_cast<int64_t>(std::sqrt(usable / 10.0));
  const Operator op =
      ParseOperator("dense:M=" + std::to_string(side) + ",N=" + std::to_string(side) + ",K=1");
  const std::string refusal = RefusalOf(target, op);
  EXPECT_NE(refusal.find("measuring it takes"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("the reference its output is checked against"), std::string::npos)
      << refusal;
  EXPECT_EQ(refusal.find("cache flush"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("where the GPU worker keeps the inputs and the reference"),
            std::string::npos)
      << refusal;
}

// A configuration with a prepared workspace (Winograd's transformed weights) that does not fit
// beside the measurement is an instantiation failure before NVRTC runs — and only when the limits
// know the device's memory.
TEST(GpuMemoryTest, APreparedWorkspaceThatDoesNotFitTheDeviceIsRefusedBeforeCompiling) {
  const Operator op = ParseOperator("conv2d:N=1,C=64,H=28,W=28,K=64,R=3,S=3,pad=1");
  const Task task = MakeGpuTask(op, "Test GPU");
  Rng rng(3);
  for (int attempt = 0; attempt < 400; ++attempt) {
    const Config config = *task.space.SampleValid(rng);
    CudaKernel kernel;
    try {
      kernel = GenerateCudaKernel(task, config, "k");
    } catch (const Error&) {
      continue;  // the template's own refusal
    }
    if (!kernel.has_prepare) continue;
    const double measurement = GpuMeasurementDeviceBytes(op, int64_t{1} << 20).Total();
    GpuLimits limits = GpuLimitsForArch("sm_90");
    limits.l2_bytes = int64_t{1} << 20;
    // One float short of the workspace.
    limits.memory_bytes = static_cast<int64_t>(measurement) + 4 * kernel.prepared_floats - 4;
    GpuBuilderOptions options;
    options.arch = "sm_90";
    options.work_dir = testing::MakeTempDir("gpu-memory-prepared");
    options.limits = limits;
    {
      GpuBuilder builder(options);
      const std::vector<BuildResult> results = builder.Build({{&task, config}});
      ASSERT_EQ(results.size(), 1u);
      EXPECT_EQ(results[0].status, MeasureStatus::kInstantiation) << results[0].error;
      EXPECT_NE(results[0].error.find("the configuration's workspace takes"), std::string::npos)
          << results[0].error;
      EXPECT_NE(results[0].error.find("of the GPU's memory"), std::string::npos)
          << results[0].error;
    }
    if (!NvrtcAvailable()) return;
    // With room, or without a known memory, it goes on to NVRTC (and builds, or is refused by a
    // compiled-resource check — not by the workspace).
    for (int64_t memory : {limits.memory_bytes + 4, int64_t{0}}) {
      options.limits->memory_bytes = memory;
      GpuBuilder builder(options);
      const std::vector<BuildResult> results = builder.Build({{&task, config}});
      EXPECT_EQ(results[0].error.find("workspace"), std::string::npos) << results[0].error;
    }
    return;
  }
  FAIL() << "no sampled configuration has a prepare kernel";
}

}  // namespace
}  // namespace glimpse
