// NVRTC compilation, ptxas' resource report and the CUBIN reader. NVRTC runs without a GPU; the
// tests that compile skip when the build has no NVRTC.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "glimpse/cuda.h"
#include "glimpse/error.h"

namespace glimpse {
namespace {

#define SKIP_WITHOUT_NVRTC() \
  if (!NvrtcAvailable()) GTEST_SKIP() << "NVRTC not available in this build"

// A block-wide reversal through a 4 KiB shared tile.
constexpr const char* kTileKernel = R"(
extern "C" __global__ void tile_reverse(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float tile[1024];
  tile[threadIdx.x] = in[blockIdx.x * 1024 + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 1024 + threadIdx.x] = tile[1023 - threadIdx.x];
}
)";

// A per-thread array indexed by a run-time value (and not recomputable from one load) cannot
// live in registers: it takes a stack frame.
constexpr const char* kLocalKernel = R"(
extern "C" __global__ void local_pick(const float* __restrict__ in, float* __restrict__ out) {
  float values[64];
  values[0] = in[threadIdx.x];
  for (int i = 1; i < 64; ++i) values[i] = values[i - 1] * in[i * blockDim.x + threadIdx.x] + 1;
  out[threadIdx.x] = values[static_cast<int>(in[0]) & 63];
}
)";

TEST(NvrtcCompileTest, ReportsVersionAndArchitectures) {
  SKIP_WITHOUT_NVRTC();
  EXPECT_FALSE(NvrtcVersion().empty());
  std::vector<std::string> archs = NvrtcSupportedArchs();
  for (const char* arch : {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90"}) {
    EXPECT_NE(std::find(archs.begin(), archs.end(), arch), archs.end()) << arch;
  }
}

TEST(NvrtcCompileTest, CompilesToCubinWithResourceUsage) {
  SKIP_WITHOUT_NVRTC();
  CudaCompileResult result = CompileCuda(kTileKernel, "sm_90");
  ASSERT_TRUE(result.ok) << result.log;
  EXPECT_FALSE(result.timed_out);
  ASSERT_GE(result.cubin.size(), 64u);
  EXPECT_EQ(result.cubin.substr(0, 4),
            "\x7f"
            "ELF");
  ASSERT_EQ(result.resources.count("tile_reverse"), 1u) << result.log;
  const CudaResourceUsage& usage = result.resources.at("tile_reverse");
  EXPECT_GT(usage.registers, 0);
  EXPECT_LE(usage.registers, 255);
  EXPECT_EQ(usage.shared_bytes, 4096);
  EXPECT_EQ(usage.local_bytes, 0);
  EXPECT_EQ(usage.spill_stores, 0);
  EXPECT_EQ(usage.spill_loads, 0);
  EXPECT_GT(result.compile_time_s, 0.0);
  EXPECT_NE(result.log.find("ptxas"), std::string::npos) << "ptxas -v report missing";
}

TEST(NvrtcCompileTest, LocalArraysShowAsStackFrame) {
  SKIP_WITHOUT_NVRTC();
  CudaCompileResult result = CompileCuda(kLocalKernel, "sm_80");
  ASSERT_TRUE(result.ok) << result.log;
  EXPECT_EQ(result.resources.at("local_pick").local_bytes, 256);  // 64 floats
}

TEST(NvrtcCompileTest, CompilesForEverySupportedKnownArchitecture) {
  SKIP_WITHOUT_NVRTC();
  std::vector<std::string> supported = NvrtcSupportedArchs();
  for (const std::string& arch : KnownGpuArchs()) {
    if (std::find(supported.begin(), supported.end(), arch) == supported.end()) continue;
    CudaCompileResult result = CompileCuda(kTileKernel, arch);
    EXPECT_TRUE(result.ok) << arch << ": " << result.log;
    EXPECT_EQ(result.resources["tile_reverse"].shared_bytes, 4096) << arch;
  }
}

TEST(NvrtcCompileTest, UnsupportedArchitectureIsACompileFailureNamingTheSupportedOnes) {
  SKIP_WITHOUT_NVRTC();
  CudaCompileResult result = CompileCuda(kTileKernel, "sm_20");
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.log.find("cannot compile for sm_20"), std::string::npos) << result.log;
  EXPECT_NE(result.log.find("sm_90"), std::string::npos) << result.log;
}

TEST(NvrtcCompileTest, MalformedArchitectureIsAnError) {
  EXPECT_THROW(CompileCuda(kTileKernel, "hopper"), Error);
  EXPECT_THROW(CompileCuda(kTileKernel, "sm_"), Error);
}

TEST(NvrtcCompileTest, CompileErrorsCarryTheLogTruncated) {
  SKIP_WITHOUT_NVRTC();
  const std::string code =
      "extern \"C\" __global__ void broken(float* out) { out[0] = undeclared_name; }\n";
  CudaCompileResult result = CompileCuda(code, "sm_90");
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.cubin.empty());
  EXPECT_NE(result.log.find("undeclared_name"), std::string::npos) << result.log;

  CudaCompileOptions options;
  options.max_error_chars = 20;
  result = CompileCuda(code, "sm_90", options);
  EXPECT_FALSE(result.ok);
  EXPECT_LE(result.log.size(), 20u + std::string(" …").size());
}

TEST(NvrtcCompileTest, InProcessAndIsolatedCompilationsAgree) {
  SKIP_WITHOUT_NVRTC();
  CudaCompileOptions here;
  here.isolate = false;
  CudaCompileResult a = CompileCuda(kTileKernel, "sm_86", here);
  CudaCompileResult b = CompileCuda(kTileKernel, "sm_86");
  ASSERT_TRUE(a.ok && b.ok);
  EXPECT_EQ(a.cubin, b.cubin);
  EXPECT_EQ(a.resources.at("tile_reverse").registers, b.resources.at("tile_reverse").registers);
}

TEST(NvrtcCompileTest, ATimeoutKillsTheCompilation) {
  SKIP_WITHOUT_NVRTC();
  CudaCompileOptions options;
  options.timeout_s = 1e-4;  // far below NVRTC's start-up alone
  CudaCompileResult result = CompileCuda(kTileKernel, "sm_90", options);
  EXPECT_TRUE(result.timed_out);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.log.find("killed"), std::string::npos) << result.log;
  EXPECT_LT(result.compile_time_s, 5.0);
}

TEST(NvrtcCompileTest, ExtraOptionsReachNvrtc) {
  SKIP_WITHOUT_NVRTC();
  CudaCompileOptions options;
  options.extra_options = {"--no-such-option"};
  CudaCompileResult result = CompileCuda(kTileKernel, "sm_90", options);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.log.find("NVRTC_ERROR_INVALID_OPTION"), std::string::npos) << result.log;
}

// ---- ptxas' report, without NVRTC

TEST(PtxasReportTest, ParsesEntryFunctionsAndIgnoresDeviceFunctions) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Function properties for helper\n"
      "ptxas         .     64 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Compiling entry function 'k2' for 'sm_90'\n"
      "ptxas info    : Function properties for k2\n"
      "ptxas         .     256 bytes stack frame, 12 bytes spill stores, 16 bytes spill loads\n"
      "ptxas info    : Used 32 registers, used 0 barriers, 256 bytes cumulative stack size\n"
      "ptxas info    : Compile time = 14.216 ms\n"
      "ptxas info    : Compiling entry function 'k1' for 'sm_75'\n"
      "ptxas info    : Function properties for k1\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 12 registers, used 1 barriers, 4096 bytes smem, 368 bytes cmem[0]\n";
  auto usage = ParsePtxasReport(log);
  ASSERT_EQ(usage.size(), 2u);
  EXPECT_EQ(usage.at("k2").registers, 32);
  EXPECT_EQ(usage.at("k2").local_bytes, 256);
  EXPECT_EQ(usage.at("k2").spill_stores, 12);
  EXPECT_EQ(usage.at("k2").spill_loads, 16);
  EXPECT_EQ(usage.at("k2").shared_bytes, 0);
  EXPECT_EQ(usage.at("k1").registers, 12);
  EXPECT_EQ(usage.at("k1").shared_bytes, 4096);
  EXPECT_EQ(usage.at("k1").constant_bytes, 368);
  EXPECT_EQ(usage.at("k1").local_bytes, 0);
  EXPECT_TRUE(ParsePtxasReport("").empty());
}

// ---- The CUBIN reader

TEST(CubinReaderTest, AgreesWithPtxasReport) {
  SKIP_WITHOUT_NVRTC();
  const std::string code = std::string(kTileKernel) + kLocalKernel;
  for (const char* arch : {"sm_75", "sm_90"}) {
    CudaCompileResult result = CompileCuda(code, arch);
    ASSERT_TRUE(result.ok) << result.log;
    auto report = ParsePtxasReport(result.log);
    ASSERT_EQ(report.size(), 2u) << result.log;
    const int64_t reserved = GpuLimitsForArch(arch).reserved_shared_per_block;
    auto elf = ReadCubinResources(result.cubin, reserved);
    ASSERT_EQ(elf.size(), 2u) << arch;
    for (const auto& [symbol, usage] : report) {
      ASSERT_EQ(elf.count(symbol), 1u) << symbol;
      EXPECT_EQ(elf.at(symbol).registers, usage.registers) << arch << " " << symbol;
      EXPECT_EQ(elf.at(symbol).shared_bytes, usage.shared_bytes) << arch << " " << symbol;
      EXPECT_EQ(elf.at(symbol).local_bytes, usage.local_bytes) << arch << " " << symbol;
    }
  }
}

TEST(CubinReaderTest, RefusesWhatIsNotAnElf64Image) {
  EXPECT_THROW(ReadCubinResources(""), Error);
  EXPECT_THROW(ReadCubinResources(std::string(128, 'x')), Error);
  std::string truncated =
      "\x7f"
      "ELF";
  truncated += std::string(1, 2) + std::string(1, 1) + std::string(58, '\0');
  truncated[0x3c] = 5;  // five sections, none present
  EXPECT_THROW(ReadCubinResources(truncated), Error);
}

}  // namespace
}  // namespace glimpse
