// The depthwise conv2d GPU template: its space, the structure of its nests, and its arithmetic —
// each nest run on this CPU through the C++ emitter and checked against the reference by the CPU
// worker (see conv2d_gpu_test.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "cpu/template_util.h"
#include "cuda/template_util.h"
#include "glimpse/cpu.h"
#include "glimpse/cuda.h"
#include "glimpse/error.h"
#include "glimpse/gpu.h"
#include "glimpse/model_zoo.h"
#include "glimpse/random.h"
#include "test_paths.h"

namespace glimpse {
namespace {

// Builds the C++ of every nest and runs it in the CPU worker against the reference of
// `op_text`; every one must be ok.
void ExpectSimulationMatches(const std::string& op_text, const std::vector<LoopNest>& nests,
                             const std::vector<std::string>& labels) {
  std::string dir = testing::MakeTempDir("glimpse-gpu-depthwise-test");
  Task task = MakeCpuTask(ParseOperator(op_text));
  std::vector<KernelSource> sources;
  for (size_t i = 0; i < nests.size(); ++i) {
    std::string symbol = "gpu_sim_" + std::to_string(i);
    sources.push_back({EmitCpp(nests[i], symbol), symbol});
  }
  CpuBuilderOptions build;
  build.work_dir = dir;
  build.flags = {"-O1", "-fPIC", "-shared", "-fopenmp", "-std=c++17", "-w"};
  build.parallel_invocations = 2;
  CpuRunnerOptions run;
  run.min_time_s = 0.0;
  run.min_repeats = 1;
  run.max_repeats = 1;
  run.warmup = 0;
  run.flush_bytes = -1;
  run.timeout_s = 20.0;
  CpuBuilder builder(build);
  CpuRunner runner(run);
  std::vector<MeasureInput> inputs(sources.size(), MeasureInput{&task, Config{}});
  std::vector<BuildResult> builds = builder.BuildSources(sources);
  std::vector<MeasureResult> results = runner.Run(inputs, builds);
  ASSERT_EQ(results.size(), nests.size());
  for (size_t i = 0; i < nests.size(); ++i) {
    EXPECT_EQ(builds[i].status, MeasureStatus::kOk) << labels[i] << "\n" << builds[i].error;
    EXPECT_EQ(results[i].status, MeasureStatus::kOk) << op_text << " " << labels[i] << "\n"
                                                     << results[i].error;
  }
  std::filesystem::remove_all(dir);
}

void ExpectRandomConfigurationsMatch(const std::string& op_text, int count, uint64_t seed,
                                     const std::vector<Json>& extra = {}) {
  DepthwiseConv2dShape shape = std::get<DepthwiseConv2dShape>(ParseOperator(op_text));
  ConfigSpace space = gpu::MakeDepthwiseGpuSpace(shape);
  std::vector<Config> configs;
  for (const Json& json : extra) configs.push_back(space.ConfigFromJson(json));
  Rng rng(seed);
  for (int i = 0; i < count; ++i) configs.push_back(*space.SampleValid(rng));
  std::vector<LoopNest> nests;
  std::vector<std::string> labels;
  for (const Config& config : configs) {
    std::string label = space.ConfigToString(config);
    LoopNest nest = gpu::MakeDepthwiseGpuNest(shape, ConfigView(space, config));
    EXPECT_NO_THROW(ValidateGpuNest(nest)) << label;
    nests.push_back(std::move(nest));
    labels.push_back(label);
  }
  ExpectSimulationMatches(op_text, nests, labels);
}

Json DepthwiseConfig(std::vector<int64_t> c, std::vector<int64_t> y, std::vector<int64_t> x,
                     int64_t cache, int64_t max_step) {
  return {{"tile_c", c},
          {"tile_y", y},
          {"tile_x", x},
          {"cache_input", cache},
          {"auto_unroll_max_step", max_step}};
}

// Channel-blocked activations are the CPU templates' layout: the GPU refuses them by name.
TEST(DepthwiseGpuTemplateTest, BlockedActivationsHaveNoGpuTemplate) {
  for (const char* op : {"depthwise_conv2d:N=1,C=32,H=8,W=8,R=3,S=3,pad=1,in_block=16,out_block=16",
                         "conv2d:N=1,C=3,H=8,W=8,K=16,R=3,S=3,pad=1,out_block=16"}) {
    try {
      MakeGpuSpace(ParseOperator(op));
      ADD_FAILURE() << op << " was given a GPU space";
    } catch (const NoTemplateError& e) {
      EXPECT_NE(std::string(e.what()).find("NCHW activations"), std::string::npos) << e.what();
    }
  }
}

TEST(DepthwiseGpuTemplateTest, SpaceRestrictsThreadsSharedMemoryAndAccumulators) {
  DepthwiseConv2dShape shape = std::get<DepthwiseConv2dShape>(
      ParseOperator("depthwise_conv2d:N=1,C=32,H=112,W=112,R=3,S=3,stride=1,pad=1"));
  ConfigSpace space = gpu::MakeDepthwiseGpuSpace(shape);
  // 2 × 16 × 56 = 1792 threads per block.
  EXPECT_FALSE(space.IsValid(
      space.ConfigFromJson(DepthwiseConfig({16, 1, 2, 1}, {7, 1, 16, 1}, {2, 1, 56, 1}, 0, 0))));
  // 32 × 7 × 2 = 448 accumulators per thread.
  EXPECT_FALSE(space.IsValid(
      space.ConfigFromJson(DepthwiseConfig({1, 1, 1, 32}, {16, 1, 1, 7}, {56, 1, 1, 2}, 0, 0))));
  // A cached window of 32 channels × 58 × 58 floats is over 48 KiB; uncached it is fine.
  Json big = DepthwiseConfig({1, 1, 32, 1}, {2, 1, 4, 14}, {2, 1, 8, 7}, 1, 0);
  EXPECT_FALSE(space.IsValid(space.ConfigFromJson(big)));
  big["cache_input"] = 0;
  EXPECT_TRUE(space.IsValid(space.ConfigFromJson(big)));
}

TEST(DepthwiseGpuTemplateTest, NestBindsBlocksThreadsAndCachesTheWindow) {
  DepthwiseConv2dShape shape = std::get<DepthwiseConv2dShape>(
      ParseOperator("depthwise_conv2d:N=2,C=8,H=12,W=12,R=3,S=3,stride=2,pad=1,bias=1"));
  ConfigSpace space = gpu::MakeDepthwiseGpuSpace(shape);
  Json json = DepthwiseConfig({2, 2, 2, 1}, {2, 1, 3, 1}, {1, 1, 3, 2}, 1, 1500);
  LoopNest cached = gpu::MakeDepthwiseGpuNest(shape, ConfigView(space, space.ConfigFromJson(json)));
  ASSERT_NO_THROW(ValidateGpuNest(cached));
  EXPECT_EQ(cached.FindLoop("n").kind, LoopKind::kBlockZ);
  EXPECT_EQ(cached.FindLoop("bc").kind, LoopKind::kBlockZ);
  EXPECT_EQ(cached.FindLoop("tc").kind, LoopKind::kThreadZ);
  EXPECT_EQ(cached.FindLoop("tx").extent, 3);
  EXPECT_EQ(cached.FindLoop("r").kind, LoopKind::kUnrolled);
  EXPECT_EQ(cached.FindLoop("s").kind, LoopKind::kUnrolled);
  EXPECT_EQ(cached.FindLoop("vc").kind, LoopKind::kUnrolled);
  EXPECT_EQ(cached.FindLoop("xi").kind, LoopKind::kUnrolled);  // within 1500 steps
  // 4 channels × ((3 − 1)·2 + 3) rows × ((6 − 1)·2 + 3) columns.
  const TensorDecl& aa = cached.tensors[cached.TensorIndex("AA")];
  EXPECT_EQ(aa.scope, MemoryScope::kShared);
  EXPECT_EQ(aa.shape, (std::vector<int64_t>{4, 7, 13}));
  EXPECT_EQ(cached.FindLoop("a_h").kind, LoopKind::kCooperative);
  EXPECT_EQ(cached.tensors[cached.TensorIndex("acc")].scope, MemoryScope::kLocal);

  json["cache_input"] = 0;
  json["auto_unroll_max_step"] = 0;
  LoopNest direct = gpu::MakeDepthwiseGpuNest(shape, ConfigView(space, space.ConfigFromJson(json)));
  ASSERT_NO_THROW(ValidateGpuNest(direct));
  EXPECT_THROW(direct.TensorIndex("AA"), Error);
  EXPECT_EQ(direct.FindLoop("xi").kind, LoopKind::kSerial);
}

TEST(DepthwiseGpuTemplateTest, CudaKernelLaunchesTheTiling) {
  DepthwiseConv2dShape shape = std::get<DepthwiseConv2dShape>(
      ParseOperator("depthwise_conv2d:N=2,C=8,H=12,W=12,R=3,S=3,stride=2,pad=1,bias=1"));
  ConfigSpace space = gpu::MakeDepthwiseGpuSpace(shape);
  Json json = DepthwiseConfig({2, 2, 2, 1}, {2, 1, 3, 1}, {1, 1, 3, 2}, 1, 1500);
  CudaKernel kernel = EmitCuda(
      gpu::MakeDepthwiseGpuNest(shape, ConfigView(space, space.ConfigFromJson(json))), "dw");
  EXPECT_EQ(kernel.launch.grid, (std::array<int64_t, 3>{1, 2, 2 * 2}));
  EXPECT_EQ(kernel.launch.block, (std::array<int64_t, 3>{3, 3, 2}));
  EXPECT_EQ(kernel.static_shared_bytes, 4 * 4 * 7 * 13);
  EXPECT_NE(kernel.code.find("__syncthreads"), std::string::npos);
  json["cache_input"] = 0;
  kernel = EmitCuda(gpu::MakeDepthwiseGpuNest(shape, ConfigView(space, space.ConfigFromJson(json))),
                    "dw");
  EXPECT_EQ(kernel.static_shared_bytes, 0);
}

// Sampled configurations of MobileNet-v2's depthwise layers and a small odd shape, compiled by
// NVRTC for sm_75 (or sm_70 where this NVRTC has it), sm_80 and sm_90 in turn.
TEST(DepthwiseGpuTemplateTest, NvrtcCompilesMobileNetV2Layers) {
  if (!NvrtcAvailable()) GTEST_SKIP() << "NVRTC not available in this build";
  std::vector<std::string> supported = NvrtcSupportedArchs(), archs;
  for (const char* arch : {"sm_70", "sm_75", "sm_80", "sm_90"}) {
    if (std::find(supported.begin(), supported.end(), arch) != supported.end()) {
      archs.emplace_back(arch);
    }
  }
  if (archs.size() == 4) archs.erase(archs.begin() + 1);
  ASSERT_FALSE(archs.empty());
  std::vector<Operator> ops = {
      ParseOperator("depthwise_conv2d:N=2,C=6,H=9,W=11,R=3,S=3,stride=2,pad=1,bias=1,relu=1")};
  std::set<std::string> seen;
  for (const ModelLayer& layer : ZooModel("mobilenet_v2")) {
    if (std::holds_alternative<DepthwiseConv2dShape>(layer.op) &&
        seen.insert(OperatorToString(layer.op)).second) {
      ops.push_back(layer.op);
    }
  }
  EXPECT_GE(ops.size(), 6u);
  Rng rng(8);
  size_t compiled = 0;
  for (const Operator& op : ops) {
    const auto& shape = std::get<DepthwiseConv2dShape>(op);
    ConfigSpace space = gpu::MakeDepthwiseGpuSpace(shape);
    // Per-thread tiles of at most 16 outputs: the largest fully unrolled ones take NVRTC up to a
    // minute (valid configurations still, for the tuner to find slow to build).
    Config config;
    for (;;) {
      config = *space.SampleValid(rng);
      Json json = space.ConfigToJson(config);
      int64_t tile = 1;
      for (const char* knob : {"tile_c", "tile_y", "tile_x"}) {
        tile *= json.at(knob)[1].get<int64_t>() * json.at(knob)[3].get<int64_t>();
      }
      if (tile <= 16) break;
    }
    std::string label = OperatorToString(op) + " " + space.ConfigToString(config);
    const std::string& arch = archs[compiled++ % archs.size()];
    CudaKernel kernel = EmitCuda(gpu::MakeDepthwiseGpuNest(shape, ConfigView(space, config)), "dw");
    CudaCompileResult result = CompileCuda(kernel.code, arch);
    ASSERT_TRUE(result.ok) << label << " " << arch << "\n" << result.log;
    ASSERT_EQ(result.resources.count("dw"), 1u) << result.log;
    EXPECT_GE(result.resources.at("dw").shared_bytes, kernel.static_shared_bytes) << label;
    EXPECT_LE(result.resources.at("dw").registers, 255) << label;
  }
}

TEST(DepthwiseGpuTemplateTest, HandPickedConfigurationsMatchTheReference) {
  ExpectRandomConfigurationsMatch(
      "depthwise_conv2d:N=2,C=6,H=9,W=11,R=3,S=3,stride=2,pad=1,bias=1,relu=1", 0, 1,
      {DepthwiseConfig({1, 1, 1, 6}, {1, 1, 1, 5}, {1, 1, 1, 6}, 0, 0),
       DepthwiseConfig({3, 1, 2, 1}, {5, 1, 1, 1}, {1, 1, 6, 1}, 1, 0),
       DepthwiseConfig({1, 2, 3, 1}, {1, 5, 1, 1}, {2, 1, 3, 1}, 1, 256),
       DepthwiseConfig({1, 3, 1, 2}, {1, 1, 5, 1}, {1, 3, 1, 2}, 0, 1500)});
}

TEST(DepthwiseGpuTemplateTest, RandomConfigurationsStridePaddingBiasReluMatch) {
  ExpectRandomConfigurationsMatch(
      "depthwise_conv2d:N=2,C=6,H=9,W=11,R=3,S=3,stride=2,pad=1,bias=1,relu=1", 10, 5);
}

TEST(DepthwiseGpuTemplateTest, RandomConfigurationsDilationMatch) {
  ExpectRandomConfigurationsMatch(
      "depthwise_conv2d:N=2,C=5,H=11,W=10,R=3,S=3,stride=1,pad=2,dilation=2,bias=0,relu=1", 8, 17);
}

TEST(DepthwiseGpuTemplateTest, RandomConfigurationsWithoutPaddingMatch) {
  ExpectRandomConfigurationsMatch("depthwise_conv2d:N=1,C=4,H=9,W=7,R=5,S=3,stride=2,pad=0", 6, 3);
}

}  // namespace
}  // namespace glimpse
