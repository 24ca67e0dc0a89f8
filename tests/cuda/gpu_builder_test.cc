// GpuBuilder: statuses, artifacts and the compile-only validity checker. NVRTC runs without a
// GPU; tests that compile skip when the build has no NVRTC.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "glimpse/cuda.h"
#include "glimpse/error.h"
#include "glimpse/json.h"
#include "glimpse/random.h"
#include "test_paths.h"

namespace glimpse {
namespace {

namespace fs = std::filesystem;

#define SKIP_WITHOUT_NVRTC() \
  if (!NvrtcAvailable()) GTEST_SKIP() << "NVRTC not available in this build"

// out[i] = in0[i] + in1[i] over a grid of 256-thread blocks (4096 floats).
CudaKernel AddKernel(const std::string& symbol, bool prepare = false) {
  CudaKernel kernel;
  kernel.symbol = symbol;
  kernel.code = "extern \"C\" __global__ void " + symbol +
                "(const float* __restrict__ a, const float* __restrict__ b, "
                "float* __restrict__ out) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  out[i] = a[i] + b[i];\n"
                "}\n";
  kernel.launch.grid = {16, 1, 1};
  kernel.launch.block = {256, 1, 1};
  kernel.num_inputs = 2;
  if (prepare) {
    kernel.code += "extern \"C\" __global__ void " + symbol +
                   "_prepare(const float* __restrict__ a, const float* __restrict__ b, "
                   "float* __restrict__ prepared) {\n"
                   "  prepared[threadIdx.x] = 2.0f * b[threadIdx.x];\n"
                   "}\n";
    kernel.has_prepare = true;
    kernel.prepare_launch.block = {128, 1, 1};
    kernel.prepared_floats = 128;
  }
  return kernel;
}

Json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return Json::parse(text.str());
}

GpuBuilderOptions Options(const std::string& name) {
  GpuBuilderOptions options;
  options.arch = "sm_90";
  options.work_dir = testing::MakeTempDir(name);
  options.parallel_invocations = 2;
  return options;
}

TEST(GpuBuilderTest, WritesTheCubinAndTheArtifactTheRunnerReads) {
  SKIP_WITHOUT_NVRTC();
  GpuBuilder builder(Options("gpu-builder-artifact"));
  std::vector<BuildResult> results = builder.BuildKernels({AddKernel("add")});
  ASSERT_EQ(results.size(), 1u);
  ASSERT_EQ(results[0].status, MeasureStatus::kOk) << results[0].error;
  EXPECT_GT(results[0].compile_time_s, 0.0);
  ASSERT_TRUE(fs::exists(results[0].artifact));
  EXPECT_EQ(fs::path(results[0].artifact).extension(), ".json");
  Json artifact = ReadJson(results[0].artifact);
  for (const char* field : {"cubin", "symbol", "grid", "block", "num_inputs", "has_prepare",
                            "prepare_grid", "prepare_block", "prepared_floats", "arch", "registers",
                            "shared_bytes", "local_bytes", "spill_stores", "spill_loads"}) {
    EXPECT_TRUE(artifact.contains(field)) << field;
  }
  EXPECT_EQ(artifact["symbol"], "add");
  EXPECT_EQ(artifact["grid"], Json::array({16, 1, 1}));
  EXPECT_EQ(artifact["block"], Json::array({256, 1, 1}));
  EXPECT_EQ(artifact["num_inputs"], 2);
  EXPECT_EQ(artifact["has_prepare"], false);
  EXPECT_EQ(artifact["arch"], "sm_90");
  EXPECT_GT(artifact["registers"].get<int>(), 0);
  EXPECT_EQ(artifact["shared_bytes"], 0);
  EXPECT_EQ(artifact["spill_stores"], 0);
  const std::string cubin = artifact["cubin"];
  ASSERT_TRUE(fs::exists(cubin));
  std::ifstream in(cubin, std::ios::binary);
  std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(image.substr(0, 4),
            "\x7f"
            "ELF");
  EXPECT_EQ(ReadCubinResources(image, 1024).at("add").registers, artifact["registers"]);
}

TEST(GpuBuilderTest, PrepareKernelIsBuiltAndChecked) {
  SKIP_WITHOUT_NVRTC();
  GpuBuilder builder(Options("gpu-builder-prepare"));
  CudaKernel without = AddKernel("no_prepare");
  without.has_prepare = true;  // claims a prepare kernel the code lacks
  std::vector<BuildResult> results = builder.BuildKernels({AddKernel("with", true), without});
  ASSERT_EQ(results[0].status, MeasureStatus::kOk) << results[0].error;
  Json artifact = ReadJson(results[0].artifact);
  EXPECT_EQ(artifact["has_prepare"], true);
  EXPECT_EQ(artifact["prepare_block"], Json::array({128, 1, 1}));
  EXPECT_EQ(artifact["prepared_floats"], 128);
  EXPECT_GT(artifact["prepare_registers"].get<int>(), 0);
  EXPECT_EQ(results[1].status, MeasureStatus::kCompileDevice);
  EXPECT_NE(results[1].error.find("no kernel 'no_prepare_prepare'"), std::string::npos)
      << results[1].error;
  EXPECT_TRUE(results[1].artifact.empty());
}

TEST(GpuBuilderTest, StatusesOfFailedKernels) {
  SKIP_WITHOUT_NVRTC();
  GpuBuilderOptions options = Options("gpu-builder-statuses");
  options.max_error_chars = 400;
  GpuBuilder builder(options);

  Generated<CudaKernel> refused_template =
      RunTemplate<CudaKernel>([]() -> CudaKernel { throw Error("tile 64 does not divide 100"); });
  CudaKernel too_many_threads = AddKernel("big_block");
  too_many_threads.launch.block = {2048, 1, 1};
  CudaKernel broken = AddKernel("broken");
  broken.code += "extern \"C\" __global__ void broken_extra(float* o) { o[0] = nope; }\n";
  // Declares less shared memory than it uses: only ptxas' report can catch it.
  CudaKernel hidden_shared;
  hidden_shared.symbol = "hidden_shared";
  hidden_shared.code =
      "extern \"C\" __global__ void hidden_shared(const float* in, float* out) {\n"
      "  __shared__ float tile[12289];\n"
      "  tile[threadIdx.x] = in[threadIdx.x];\n"
      "  __syncthreads();\n"
      "  out[threadIdx.x] = tile[12288 - threadIdx.x];\n"
      "}\n";
  hidden_shared.launch.block = {128, 1, 1};
  hidden_shared.num_inputs = 1;

  auto ok = [](CudaKernel kernel) { return Generated<CudaKernel>{MeasureStatus::kOk, "", kernel}; };
  std::vector<BuildResult> results =
      builder.BuildGenerated({refused_template, ok(too_many_threads), ok(broken), ok(hidden_shared),
                              ok(AddKernel("fine"))});
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].status, MeasureStatus::kInstantiation);
  EXPECT_EQ(results[0].error, "tile 64 does not divide 100");
  EXPECT_EQ(results[1].status, MeasureStatus::kInstantiation);
  EXPECT_NE(results[1].error.find("block of 2048 threads exceeds the device's 1024 per block"),
            std::string::npos)
      << results[1].error;
  EXPECT_EQ(results[1].compile_time_s, 0.0);  // refused before compiling
  EXPECT_EQ(results[2].status, MeasureStatus::kCompileDevice);
  EXPECT_NE(results[2].error.find("nope"), std::string::npos) << results[2].error;
  EXPECT_LE(results[2].error.size(), 400u + std::string(" …").size());
  EXPECT_EQ(results[3].status, MeasureStatus::kCompileDevice);
  EXPECT_NE(results[3].error.find("ptxas reports 49156 bytes of static shared memory"),
            std::string::npos)
      << results[3].error;
  EXPECT_EQ(results[4].status, MeasureStatus::kOk) << results[4].error;
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(results[i].artifact.empty()) << i;
}

TEST(GpuBuilderTest, RegisterHeavyKernelIsRefusedAfterCompiling) {
  SKIP_WITHOUT_NVRTC();
  GpuBuilder builder(Options("gpu-builder-registers"));
  CudaKernel heavy;
  heavy.symbol = "heavy";
  heavy.code = R"(
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
  heavy.num_inputs = 1;
  heavy.launch.block = {1024, 1, 1};
  CudaKernel small_block = heavy;
  small_block.launch.block = {128, 1, 1};
  std::vector<BuildResult> results = builder.BuildKernels({heavy, small_block});
  EXPECT_EQ(results[0].status, MeasureStatus::kCompileDevice);
  EXPECT_NE(results[0].error.find("registers × 1024 threads"), std::string::npos)
      << results[0].error;
  ASSERT_EQ(results[1].status, MeasureStatus::kOk) << results[1].error;
  Json artifact = ReadJson(results[1].artifact);
  EXPECT_GT(artifact["spill_stores"].get<int64_t>(), 0);
  EXPECT_TRUE(artifact.contains("note"));
}

TEST(GpuBuilderTest, TimeoutIsBuildTimeout) {
  SKIP_WITHOUT_NVRTC();
  GpuBuilderOptions options = Options("gpu-builder-timeout");
  options.timeout_s = 1e-4;
  GpuBuilder builder(options);
  std::vector<BuildResult> results = builder.BuildKernels({AddKernel("slow")});
  EXPECT_EQ(results[0].status, MeasureStatus::kBuildTimeout);
  EXPECT_NE(results[0].error.find("killed"), std::string::npos) << results[0].error;
}

TEST(GpuBuilderTest, ParallelBuildsKeepTheirOrderAndArtifacts) {
  SKIP_WITHOUT_NVRTC();
  GpuBuilder builder(Options("gpu-builder-parallel"));
  std::vector<CudaKernel> kernels;
  for (int i = 0; i < 6; ++i) kernels.push_back(AddKernel("add_" + std::to_string(i)));
  std::vector<BuildResult> first = builder.BuildKernels(kernels);
  std::vector<BuildResult> second = builder.BuildKernels(kernels);  // new units, no overwrite
  std::set<std::string> artifacts;
  for (const auto* results : {&first, &second}) {
    for (size_t i = 0; i < results->size(); ++i) {
      ASSERT_EQ((*results)[i].status, MeasureStatus::kOk) << (*results)[i].error;
      EXPECT_EQ(ReadJson((*results)[i].artifact)["symbol"], "add_" + std::to_string(i));
      artifacts.insert((*results)[i].artifact);
    }
  }
  EXPECT_EQ(artifacts.size(), 12u);
}

TEST(GpuBuilderTest, OptionsAndDefaults) {
  GpuBuilderOptions no_time;
  no_time.timeout_s = 0;
  EXPECT_THROW(GpuBuilder{no_time}, Error);
  GpuBuilderOptions unknown;
  unknown.arch = "sm_61";
  EXPECT_THROW(GpuBuilder{unknown}, Error);

  EXPECT_EQ(DefaultCudaArch(), "sm_90");
  SetCudaArchProbe([]() -> std::optional<std::string> { return "sm_86"; });
  EXPECT_EQ(DefaultCudaArch(), "sm_86");
  GpuBuilder probed;
  EXPECT_EQ(probed.arch(), "sm_86");
  EXPECT_EQ(probed.limits().max_threads_per_sm, 1536);
  SetCudaArchProbe([]() -> std::optional<std::string> { return std::nullopt; });
  EXPECT_EQ(DefaultCudaArch(), "sm_90");
  SetCudaArchProbe(nullptr);
  EXPECT_EQ(DefaultCudaArch(), "sm_90");

  GpuBuilderOptions live;  // limits from a live query win over the table
  live.arch = "sm_90";
  live.limits = GpuLimitsForArch("sm_90");
  live.limits->max_threads_per_block = 512;
  GpuBuilder limited(live);
  std::vector<BuildResult> results = limited.BuildKernels({[] {
    CudaKernel kernel = AddKernel("k");
    kernel.launch.block = {1024, 1, 1};
    return kernel;
  }()});
  EXPECT_EQ(results[0].status, MeasureStatus::kInstantiation);
  EXPECT_NE(results[0].error.find("512 per block"), std::string::npos) << results[0].error;
}

// ---- Generated kernels

TEST(GpuBuilderTest, BuildsGeneratedDenseKernels) {
  SKIP_WITHOUT_NVRTC();
  Task task = MakeGpuTask(ParseOperator("dense:M=64,N=128,K=96,bias=1,relu=1"), "test GPU");
  Rng rng(7);
  std::vector<MeasureInput> inputs;
  for (int i = 0; i < 6; ++i) inputs.push_back({&task, *task.space.SampleValid(rng)});
  GpuBuilder builder(Options("gpu-builder-dense"));
  std::vector<BuildResult> results = builder.Build(inputs);
  ASSERT_EQ(results.size(), inputs.size());
  int ok = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const BuildResult& result = results[i];
    EXPECT_TRUE(result.status == MeasureStatus::kOk ||
                result.status == MeasureStatus::kInstantiation ||
                result.status == MeasureStatus::kCompileDevice)
        << StatusName(result.status) << ": " << result.error;
    if (result.status != MeasureStatus::kOk) continue;
    ++ok;
    Json artifact = ReadJson(result.artifact);
    EXPECT_EQ(artifact["num_inputs"], 3);  // A, B, bias
    CudaKernel kernel = GenerateCudaKernel(task, inputs[i].config, artifact["symbol"]);
    EXPECT_EQ(artifact["block"], Json::array({kernel.launch.block[0], kernel.launch.block[1],
                                              kernel.launch.block[2]}));
  }
  EXPECT_GT(ok, 0) << "no sampled dense configuration built";
}

// Every operator's template emits code NVRTC accepts: a sampled configuration either builds or is
// refused by a check with its reason (instantiation, or a resource limit after compiling), never
// by a compile error in the generated code (or it takes NVRTC too long).
TEST(GpuBuilderTest, GeneratedKernelsOfEveryOperatorCompile) {
  SKIP_WITHOUT_NVRTC();
  const char* const kOps[] = {
      "conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,stride=1,pad=1,bias=1,relu=1",
      "conv2d:N=1,C=8,H=15,W=15,K=16,R=3,S=3,stride=2,pad=1",
      "depthwise_conv2d:N=1,C=32,H=28,W=28,R=3,S=3,stride=1,pad=1,bias=1",
      "batch_matmul:B=4,M=32,N=48,K=64",
      "dense:M=16,N=96,K=80,bias=1",
  };
  GpuBuilderOptions options = Options("gpu-builder-operators");
  // Large unroll factors can keep NVRTC busy for minutes: those are build-timeout, a status the
  // tuner records like any other.
  options.timeout_s = 10;
  GpuBuilder builder(options);
  int built = 0;
  for (const char* op : kOps) {
    Task task = MakeGpuTask(ParseOperator(op), "test GPU");
    Rng rng(11);
    std::vector<MeasureInput> inputs;
    for (int i = 0; i < 3; ++i) inputs.push_back({&task, *task.space.SampleValid(rng)});
    std::vector<BuildResult> results = builder.Build(inputs);
    for (size_t i = 0; i < results.size(); ++i) {
      const BuildResult& result = results[i];
      const std::string label = std::string(op) + " " + task.space.ConfigToString(inputs[i].config);
      if (result.status == MeasureStatus::kCompileDevice) {
        EXPECT_EQ(result.error.rfind("kernel '", 0), 0u)
            << label << ": NVRTC refused the generated code:\n"
            << result.error;
      } else {
        EXPECT_TRUE(result.status == MeasureStatus::kOk ||
                    result.status == MeasureStatus::kInstantiation ||
                    result.status == MeasureStatus::kBuildTimeout)
            << label << ": " << StatusName(result.status) << " " << result.error;
      }
      built += result.status == MeasureStatus::kOk;
    }
  }
  EXPECT_GT(built, 0);
}

TEST(CompileCudaValidityCheckerTest, ClassifiesConfigurationsByBuilding) {
  SKIP_WITHOUT_NVRTC();
  Task task = MakeGpuTask(ParseOperator("dense:M=32,N=64,K=64"), "test GPU");
  Rng rng(3);
  std::vector<Config> configs;
  for (int i = 0; i < 4; ++i) configs.push_back(*task.space.SampleValid(rng));
  CompileCudaValidityChecker checker(task, Options("gpu-validity"));
  std::vector<ValidityResult> results = checker.Check(configs);
  ASSERT_EQ(results.size(), configs.size());
  for (const ValidityResult& result : results) {
    EXPECT_EQ(result.valid, result.status == MeasureStatus::kOk);
    if (result.valid) {
      EXPECT_GT(result.cost_s, 0.0);
    }
  }
  Config out_of_range = configs[0];
  out_of_range.indices[0] = 1u << 30;
  EXPECT_THROW(checker.Check({out_of_range}), Error);
}

}  // namespace
}  // namespace glimpse
