// Device limits and the static validity check, at the limits, and its agreement with what NVRTC
// and ptxas report for hand-written kernels.
#include <gtest/gtest.h>

#include <string>

#include "glimpse/cuda.h"
#include "glimpse/error.h"

namespace glimpse {
namespace {

CudaKernel KernelWithBlock(std::array<int64_t, 3> block, std::array<int64_t, 3> grid = {1, 1, 1},
                           int64_t shared = 0) {
  CudaKernel kernel;
  kernel.code = "unused";
  kernel.symbol = "k";
  kernel.launch.block = block;
  kernel.launch.grid = grid;
  kernel.static_shared_bytes = shared;
  return kernel;
}

// A kernel whose shared tile is `floats` floats.
std::string SharedKernel(int64_t floats) {
  return "extern \"C\" __global__ void shared_tile(const float* __restrict__ in, float* out) {\n"
         "  __shared__ float tile[" +
         std::to_string(floats) +
         "];\n"
         "  tile[threadIdx.x] = in[threadIdx.x];\n"
         "  __syncthreads();\n"
         "  out[threadIdx.x] = tile[" +
         std::to_string(floats) +
         " - 1 - threadIdx.x];\n"
         "}\n";
}

// 192 values per thread, all live at once: ptxas takes the 255 registers a thread may have (and
// spills the rest).
constexpr const char* kHeavyKernel = R"(
extern "C" __global__ void heavy(const float* __restrict__ a, float* out) {
  float v[192];
  #pragma unroll
  for (int i = 0; i < 192; ++i) v[i] = a[i * blockDim.x + threadIdx.x];
  float s = 0.f;
  #pragma unroll
  for (int j = 0; j < 8; ++j) {
    #pragma unroll
    for (int i = 0; i < 192; ++i) s += v[i] * v[(i * 7 + j) % 192];
  }
  #pragma unroll
  for (int i = 0; i < 192; ++i) out[i * blockDim.x + threadIdx.x] = v[i] * s;
}
)";

// ---- Limits

TEST(GpuLimitsTest, KnowsTheTableOfEachComputeCapability) {
  for (const std::string& arch : KnownGpuArchs()) {
    GpuLimits limits = GpuLimitsForArch(arch);
    EXPECT_EQ(limits.arch, arch);
    EXPECT_EQ(ArchForComputeCapability(limits.cc_major, limits.cc_minor), arch);
    EXPECT_EQ(limits.max_threads_per_block, 1024);
    EXPECT_EQ(limits.max_static_shared_per_block, 48 * 1024);
    EXPECT_EQ(limits.registers_per_block, 65536);
    EXPECT_EQ(limits.max_registers_per_thread, 255);
    EXPECT_GE(limits.max_optin_shared_per_block, limits.max_static_shared_per_block);
    EXPECT_LE(limits.max_optin_shared_per_block + limits.reserved_shared_per_block,
              limits.shared_per_sm);
  }
  EXPECT_EQ(KnownGpuArchs().size(), 8u);
  GpuLimits hopper = GpuLimitsForArch("sm_90");
  EXPECT_EQ(hopper.max_threads_per_sm, 2048);
  EXPECT_EQ(hopper.shared_per_sm, 228 * 1024);
  EXPECT_EQ(hopper.max_optin_shared_per_block, 227 * 1024);
  GpuLimits ampere = GpuLimitsForArch("sm_86");
  EXPECT_EQ(ampere.max_threads_per_sm, 1536);
  EXPECT_EQ(ampere.max_blocks_per_sm, 16);
  EXPECT_EQ(GpuLimitsForArch("sm_75").max_threads_per_sm, 1024);
  EXPECT_EQ(GpuLimitsForArch("sm_70").reserved_shared_per_block, 0);
  EXPECT_EQ(GpuLimitsForArch("sm_80").shared_per_sm, 164 * 1024);
}

TEST(GpuLimitsTest, UnknownArchitectureNamesTheKnownOnes) {
  try {
    GpuLimitsForArch("sm_61");
    FAIL() << "expected an Error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("sm_61"), std::string::npos) << message;
    EXPECT_NE(message.find("sm_70, sm_75, sm_80, sm_86, sm_89, sm_90, sm_100, sm_120"),
              std::string::npos)
        << message;
  }
}

TEST(GpuLimitsTest, RegistersAreAllocatedPerWarpInUnits) {
  GpuLimits limits = GpuLimitsForArch("sm_90");
  EXPECT_EQ(RegistersPerBlock(64, 1024, limits), 65536);
  EXPECT_EQ(RegistersPerBlock(255, 1024, limits), 8192 * 32);  // 255 × 32 → 8192 per warp
  EXPECT_EQ(RegistersPerBlock(33, 32, limits), 1280);          // 1056 → 5 units of 256
  EXPECT_EQ(RegistersPerBlock(32, 33, limits), 2048);          // 33 threads are 2 warps
}

// ---- Before compiling

TEST(CheckLaunchTest, ThreadsPerBlockAtTheLimit) {
  GpuLimits limits = GpuLimitsForArch("sm_90");
  EXPECT_TRUE(CheckLaunch(KernelWithBlock({1024, 1, 1}), limits).ok());
  EXPECT_TRUE(CheckLaunch(KernelWithBlock({32, 32, 1}), limits).ok());
  GpuCheck check = CheckLaunch(KernelWithBlock({1025, 1, 1}), limits);
  EXPECT_EQ(check.status, MeasureStatus::kInstantiation);
  EXPECT_NE(check.reason.find("block of 1025 threads exceeds the device's 1024 per block"),
            std::string::npos)
      << check.reason;
  check = CheckLaunch(KernelWithBlock({64, 32, 1}), limits);
  EXPECT_NE(check.reason.find("block of 2048 threads"), std::string::npos) << check.reason;
}

TEST(CheckLaunchTest, BlockAndGridDimensionsAtTheLimit) {
  GpuLimits limits = GpuLimitsForArch("sm_80");
  EXPECT_TRUE(CheckLaunch(KernelWithBlock({1, 1, 64}), limits).ok());
  GpuCheck check = CheckLaunch(KernelWithBlock({1, 1, 65}), limits);
  EXPECT_EQ(check.status, MeasureStatus::kInstantiation);
  EXPECT_NE(check.reason.find("block dimension z of 65"), std::string::npos) << check.reason;
  EXPECT_TRUE(CheckLaunch(KernelWithBlock({1, 1, 1}, {2147483647, 65535, 65535}), limits).ok());
  check = CheckLaunch(KernelWithBlock({1, 1, 1}, {1, 65536, 1}), limits);
  EXPECT_NE(check.reason.find("grid dimension y of 65536 blocks exceeds the device's 65535"),
            std::string::npos)
      << check.reason;
  check = CheckLaunch(KernelWithBlock({1, 1, 1}, {2147483648, 1, 1}), limits);
  EXPECT_EQ(check.status, MeasureStatus::kInstantiation);
  check = CheckLaunch(KernelWithBlock({0, 1, 1}), limits);
  EXPECT_NE(check.reason.find("block dimension x is 0"), std::string::npos) << check.reason;
}

TEST(CheckLaunchTest, StaticSharedMemoryAtTheLimit) {
  GpuLimits limits = GpuLimitsForArch("sm_90");
  EXPECT_TRUE(CheckLaunch(KernelWithBlock({256, 1, 1}, {1, 1, 1}, 48 * 1024), limits).ok());
  GpuCheck check = CheckLaunch(KernelWithBlock({256, 1, 1}, {1, 1, 1}, 48 * 1024 + 4), limits);
  EXPECT_EQ(check.status, MeasureStatus::kInstantiation);
  EXPECT_NE(check.reason.find("49156 bytes of static shared memory exceed the device's 49152"),
            std::string::npos)
      << check.reason;
}

TEST(CheckLaunchTest, ThePrepareLaunchIsCheckedToo) {
  GpuLimits limits = GpuLimitsForArch("sm_90");
  CudaKernel kernel = KernelWithBlock({128, 1, 1});
  kernel.prepare_launch.block = {2048, 1, 1};
  EXPECT_TRUE(CheckLaunch(kernel, limits).ok());  // no prepare kernel: its launch is unused
  kernel.has_prepare = true;
  GpuCheck check = CheckLaunch(kernel, limits);
  EXPECT_EQ(check.status, MeasureStatus::kInstantiation);
  EXPECT_NE(check.reason.find("k_prepare"), std::string::npos) << check.reason;
}

// ---- After compiling

TEST(CheckResourcesTest, RegistersTimesThreadsAtTheLimit) {
  GpuLimits limits = GpuLimitsForArch("sm_90");
  CudaLaunch launch;
  launch.block = {1024, 1, 1};
  CudaResourceUsage usage;
  usage.registers = 64;
  EXPECT_TRUE(CheckResources("k", usage, launch, limits).ok());
  usage.registers = 65;
  GpuCheck check = CheckResources("k", usage, launch, limits);
  EXPECT_EQ(check.status, MeasureStatus::kCompileDevice);
  EXPECT_NE(check.reason.find("65 registers × 1024 threads take 73728 registers"),
            std::string::npos)
      << check.reason;
  launch.block = {256, 1, 1};
  usage.registers = 255;
  EXPECT_TRUE(CheckResources("k", usage, launch, limits).ok());
  usage.registers = 256;  // only with an option ptxas does not have, but a live query might say
  EXPECT_EQ(CheckResources("k", usage, launch, limits).status, MeasureStatus::kCompileDevice);
}

TEST(CheckResourcesTest, SpillsAreANoteNotAnError) {
  GpuLimits limits = GpuLimitsForArch("sm_90");
  CudaLaunch launch;
  launch.block = {64, 1, 1};
  CudaResourceUsage usage;
  usage.registers = 255;
  usage.spill_stores = 16;
  usage.spill_loads = 8;
  GpuCheck check = CheckResources("k", usage, launch, limits);
  EXPECT_TRUE(check.ok());
  EXPECT_NE(check.note.find("spills 16 bytes stores, 8 bytes loads"), std::string::npos)
      << check.note;
  usage.spill_stores = usage.spill_loads = 0;
  EXPECT_TRUE(CheckResources("k", usage, launch, limits).note.empty());
}

// ---- Agreement with the compiler

TEST(StaticValidityAgreementTest, SharedMemoryLimitMatchesPtxas) {
  if (!NvrtcAvailable()) GTEST_SKIP() << "NVRTC not available in this build";
  GpuLimits limits = GpuLimitsForArch("sm_90");
  CudaLaunch launch;
  launch.block = {256, 1, 1};

  // Exactly 48 KiB: accepted before, compiled, accepted after.
  CudaKernel at_limit = KernelWithBlock({256, 1, 1}, {1, 1, 1}, 48 * 1024);
  EXPECT_TRUE(CheckLaunch(at_limit, limits).ok());
  CudaCompileResult result = CompileCuda(SharedKernel(12288), "sm_90");
  ASSERT_TRUE(result.ok) << result.log;
  EXPECT_EQ(result.resources.at("shared_tile").shared_bytes, 48 * 1024);
  EXPECT_TRUE(
      CheckResources("shared_tile", result.resources.at("shared_tile"), launch, limits).ok());

  // 4 bytes more: refused before compiling, and ptxas refuses it too.
  CudaKernel over = KernelWithBlock({256, 1, 1}, {1, 1, 1}, 48 * 1024 + 4);
  EXPECT_EQ(CheckLaunch(over, limits).status, MeasureStatus::kInstantiation);
  result = CompileCuda(SharedKernel(12289), "sm_90");
  EXPECT_FALSE(result.ok);
  ASSERT_EQ(result.resources.count("shared_tile"), 1u) << result.log;
  GpuCheck check =
      CheckResources("shared_tile", result.resources.at("shared_tile"), launch, limits);
  EXPECT_EQ(check.status, MeasureStatus::kCompileDevice);
  EXPECT_NE(check.reason.find("49156 bytes"), std::string::npos) << check.reason;
}

TEST(StaticValidityAgreementTest, RegisterHeavyKernelCompilesButIsRefusedAt1024Threads) {
  if (!NvrtcAvailable()) GTEST_SKIP() << "NVRTC not available in this build";
  GpuLimits limits = GpuLimitsForArch("sm_90");
  CudaCompileResult result = CompileCuda(kHeavyKernel, "sm_90");
  ASSERT_TRUE(result.ok) << result.log;
  const CudaResourceUsage& usage = result.resources.at("heavy");
  EXPECT_EQ(usage.registers, 255) << result.log;
  EXPECT_GT(usage.spill_stores, 0) << result.log;

  CudaLaunch launch;
  launch.block = {1024, 1, 1};
  GpuCheck check = CheckResources("heavy", usage, launch, limits);
  EXPECT_EQ(check.status, MeasureStatus::kCompileDevice);
  EXPECT_NE(check.reason.find("255 registers × 1024 threads"), std::string::npos) << check.reason;
  EXPECT_FALSE(check.note.empty());  // it spills, too
  launch.block = {256, 1, 1};        // 8192 × 8 warps = 65536: fits exactly
  EXPECT_TRUE(CheckResources("heavy", usage, launch, limits).ok());
}

}  // namespace
}  // namespace glimpse
