// The direct conv2d GPU template: its space's knobs and limits, the structure of its nests
// (ValidateGpuNest, bindings, shared/local tensors), and its arithmetic — each nest run on this
// CPU through the C++ emitter (GPU loops as serial loops, glimpse/loop_nest.h) and checked
// against the reference by the CPU worker.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <functional>
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

// Builds the C++ of every nest and runs it in the CPU worker, which checks it against the
// reference of `op_text`; every one must be ok. `labels` name the configurations in failures.
void ExpectSimulationMatches(const std::string& op_text, const std::vector<LoopNest>& nests,
                             const std::vector<std::string>& labels) {
  std::string dir = testing::MakeTempDir("glimpse-gpu-conv-test");
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

// `count` random valid direct configurations of `op_text` (plus `extra` given as JSON): each
// nest must pass ValidateGpuNest and compute the convolution.
void ExpectRandomConfigurationsMatch(const std::string& op_text, int count, uint64_t seed,
                                     const std::vector<Json>& extra = {}) {
  Conv2dShape shape = std::get<Conv2dShape>(ParseOperator(op_text));
  ConfigSpace space = gpu::MakeConv2dGpuSpace(shape);
  std::vector<Config> configs;
  for (const Json& json : extra) configs.push_back(space.ConfigFromJson(json));
  Rng rng(seed);
  while (static_cast<int>(configs.size()) < count + static_cast<int>(extra.size())) {
    Config config = *space.SampleValid(rng);
    if (space.ConfigToJson(config).at("algorithm") == "direct") configs.push_back(config);
  }
  std::vector<LoopNest> nests;
  std::vector<std::string> labels;
  for (const Config& config : configs) {
    std::string label = space.ConfigToString(config);
    LoopNest nest = gpu::MakeConv2dGpuNest(shape, ConfigView(space, config));
    EXPECT_NO_THROW(ValidateGpuNest(nest)) << label;
    nests.push_back(std::move(nest));
    labels.push_back(label);
  }
  ExpectSimulationMatches(op_text, nests, labels);
}

Json DirectConfig(std::vector<int64_t> f, std::vector<int64_t> y, std::vector<int64_t> x,
                  std::vector<int64_t> rc, std::vector<int64_t> ry, std::vector<int64_t> rx,
                  int64_t max_step, int64_t explicit_unroll) {
  return {{"algorithm", "direct"},
          {"tile_f", f},
          {"tile_y", y},
          {"tile_x", x},
          {"tile_rc", rc},
          {"tile_ry", ry},
          {"tile_rx", rx},
          {"auto_unroll_max_step", max_step},
          {"unroll_explicit", explicit_unroll}};
}

TEST(Conv2dGpuTemplateTest, SpaceHasAutoTvmKnobs) {
  ConfigSpace space = gpu::MakeConv2dGpuSpace(std::get<Conv2dShape>(
      ParseOperator("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1")));
  for (const char* knob : {"algorithm", "tile_f", "tile_y", "tile_x", "tile_rc", "tile_ry",
                           "tile_rx", "auto_unroll_max_step", "unroll_explicit"}) {
    EXPECT_NO_THROW(space.KnobIndex(knob)) << knob;
  }
  const Knob& tile_f = space.knobs()[space.KnobIndex("tile_f")];
  EXPECT_EQ(std::get<std::vector<int64_t>>(tile_f.ValueAt(0)).size(), 4u);
  const Knob& unroll = space.knobs()[space.KnobIndex("auto_unroll_max_step")];
  EXPECT_EQ(unroll.size(), 3u);
  EXPECT_EQ(std::get<int64_t>(unroll.ValueAt(2)), 1500);
}

TEST(Conv2dGpuTemplateTest, SpaceRestrictsThreadsSharedMemoryAndAccumulators) {
  Conv2dShape shape =
      std::get<Conv2dShape>(ParseOperator("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1"));
  ConfigSpace space = gpu::MakeConv2dGpuSpace(shape);
  // 32 × 8 × 8 = 2048 threads per block.
  EXPECT_FALSE(space.IsValid(space.ConfigFromJson(
      DirectConfig({1, 1, 32, 2}, {1, 1, 8, 7}, {1, 1, 8, 7}, {64, 1}, {3, 1}, {3, 1}, 0, 0))));
  // 64 × 2 × 2 × 7 × 7 > 256 accumulators per thread.
  EXPECT_FALSE(space.IsValid(space.ConfigFromJson(
      DirectConfig({1, 1, 1, 64}, {4, 1, 2, 7}, {4, 1, 2, 7}, {64, 1}, {3, 1}, {3, 1}, 0, 0))));
  // The input window of 64 channels × 58 × 58 floats is over 48 KiB of shared memory.
  EXPECT_FALSE(space.IsValid(space.ConfigFromJson(
      DirectConfig({16, 1, 4, 1}, {1, 1, 8, 7}, {1, 1, 8, 7}, {1, 64}, {3, 1}, {3, 1}, 0, 0))));
  // An AutoTVM-like sane configuration.
  Json sane =
      DirectConfig({4, 2, 8, 1}, {7, 1, 8, 1}, {7, 1, 8, 1}, {16, 4}, {3, 1}, {1, 3}, 512, 1);
  EXPECT_TRUE(space.IsValid(space.ConfigFromJson(sane)));
  Config config = space.ConfigFromJson(sane);
  LoopNest nest = gpu::MakeConv2dGpuNest(shape, ConfigView(space, config));
  EXPECT_NO_THROW(ValidateGpuNest(nest));
}

TEST(Conv2dGpuTemplateTest, NestBindsBlocksThreadsAndPlacesTiles) {
  Conv2dShape shape = std::get<Conv2dShape>(
      ParseOperator("conv2d:N=2,C=8,H=12,W=12,K=16,R=3,S=3,stride=1,pad=1,bias=1,relu=1"));
  ConfigSpace space = gpu::MakeConv2dGpuSpace(shape);
  Config config = space.ConfigFromJson(
      DirectConfig({2, 2, 4, 1}, {3, 1, 4, 1}, {1, 2, 3, 2}, {2, 4}, {1, 3}, {3, 1}, 1500, 0));
  LoopNest nest = gpu::MakeConv2dGpuNest(shape, ConfigView(space, config));
  ASSERT_NO_THROW(ValidateGpuNest(nest));
  // N is fused with tile_f's block part into blockIdx.z.
  EXPECT_EQ(nest.FindLoop("n").kind, LoopKind::kBlockZ);
  EXPECT_EQ(nest.FindLoop("bf").kind, LoopKind::kBlockZ);
  EXPECT_EQ(nest.FindLoop("bf").extent, 2);
  EXPECT_EQ(nest.FindLoop("by").kind, LoopKind::kBlockY);
  EXPECT_EQ(nest.FindLoop("bx").kind, LoopKind::kBlockX);
  EXPECT_EQ(nest.FindLoop("tf").kind, LoopKind::kThreadZ);
  EXPECT_EQ(nest.FindLoop("tf").extent, 4);
  EXPECT_EQ(nest.FindLoop("tx").extent, 3);
  // Virtual threads are unrolled loops inside the thread loops.
  EXPECT_EQ(nest.FindLoop("vf").kind, LoopKind::kUnrolled);
  EXPECT_EQ(nest.FindLoop("vx").kind, LoopKind::kUnrolled);
  // Shared tiles: the input window (4 channels, 4 rows + 2, 12 columns) and the weights.
  const TensorDecl& aa = nest.tensors[nest.TensorIndex("AA")];
  EXPECT_EQ(aa.scope, MemoryScope::kShared);
  EXPECT_EQ(aa.shape, (std::vector<int64_t>{4, 6, 12}));
  const TensorDecl& ww = nest.tensors[nest.TensorIndex("WW")];
  EXPECT_EQ(ww.scope, MemoryScope::kShared);
  EXPECT_EQ(ww.shape, (std::vector<int64_t>{8, 4, 3, 1}));
  EXPECT_EQ(nest.FindLoop("a_c").kind, LoopKind::kCooperative);
  EXPECT_EQ(nest.FindLoop("w_f").kind, LoopKind::kCooperative);
  const TensorDecl& acc = nest.tensors[nest.TensorIndex("acc")];
  EXPECT_EQ(acc.scope, MemoryScope::kLocal);
  EXPECT_EQ(acc.NumElements(), 2 * 1 * 1 * 1 * 2 * 2);
  // Reduction splits: outer serial, inner with the step budget (explicit 0: not unrolled).
  EXPECT_EQ(nest.FindLoop("rco").extent, 2);
  EXPECT_EQ(nest.FindLoop("rci").kind, LoopKind::kSerial);
}

TEST(Conv2dGpuTemplateTest, UnrollKnobsMarkInnerLoops) {
  Conv2dShape shape =
      std::get<Conv2dShape>(ParseOperator("conv2d:N=1,C=8,H=8,W=8,K=16,R=3,S=3,stride=1,pad=1"));
  ConfigSpace space = gpu::MakeConv2dGpuSpace(shape);
  auto nest_for = [&](int64_t max_step, int64_t explicit_unroll) {
    Config config =
        space.ConfigFromJson(DirectConfig({2, 1, 4, 2}, {2, 1, 4, 1}, {1, 1, 4, 2}, {2, 4}, {1, 3},
                                          {1, 3}, max_step, explicit_unroll));
    return gpu::MakeConv2dGpuNest(shape, ConfigView(space, config));
  };
  LoopNest none = nest_for(0, 0);
  EXPECT_EQ(none.FindLoop("fi").kind, LoopKind::kSerial);
  EXPECT_EQ(none.FindLoop("vf").kind, LoopKind::kUnrolled);  // vthreads always
  LoopNest tile = nest_for(512, 0);
  EXPECT_EQ(tile.FindLoop("fi").kind, LoopKind::kUnrolled);
  EXPECT_EQ(tile.FindLoop("xi").kind, LoopKind::kUnrolled);
  EXPECT_EQ(tile.FindLoop("s_fi").kind, LoopKind::kUnrolled);
  EXPECT_EQ(tile.FindLoop("rxi").kind, LoopKind::kSerial);
  LoopNest reduction = nest_for(512, 1);
  EXPECT_EQ(reduction.FindLoop("rxi").kind, LoopKind::kUnrolled);
  EXPECT_EQ(reduction.FindLoop("rci").kind, LoopKind::kUnrolled);  // 4 · 3 · 3 · 4 ≤ 512
}

TEST(Conv2dGpuTemplateTest, ConfigurationBeyondTheLimitsDoesNotInstantiate) {
  Conv2dShape shape =
      std::get<Conv2dShape>(ParseOperator("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1"));
  ConfigSpace space = gpu::MakeConv2dGpuSpace(shape);
  Config config = space.ConfigFromJson(
      DirectConfig({1, 1, 1, 64}, {4, 1, 2, 7}, {4, 1, 2, 7}, {64, 1}, {3, 1}, {3, 1}, 0, 0));
  EXPECT_THROW(gpu::MakeConv2dGpuNest(shape, ConfigView(space, config)), Error);
}

// The check above can fail: a nest whose epilogue applies a ReLU the layer does not have is a
// wrong answer.
TEST(Conv2dGpuTemplateTest, SimulationCatchesAWrongNest) {
  const std::string op = "conv2d:N=1,C=3,H=6,W=6,K=4,R=3,S=3,stride=1,pad=1";
  Conv2dShape shape = std::get<Conv2dShape>(ParseOperator(op));
  ConfigSpace space = gpu::MakeConv2dGpuSpace(shape);
  Config config = space.ConfigFromJson(
      DirectConfig({2, 1, 2, 1}, {2, 1, 3, 1}, {1, 2, 3, 1}, {1, 3}, {3, 1}, {1, 3}, 512, 0));
  LoopNest nest = gpu::MakeConv2dGpuNest(shape, ConfigView(space, config));
  const int out = nest.TensorIndex("O");
  int stores = 0;
  std::function<void(std::vector<Node>&)> add_relu = [&](std::vector<Node>& nodes) {
    for (Node& node : nodes) {
      if (node.is_loop) {
        add_relu(node.body);
      } else if (node.stmt.kind == StmtKind::kCopy && node.stmt.dst.tensor == out) {
        node.stmt.relu = true;
        ++stores;
      }
    }
  };
  add_relu(nest.body);
  ASSERT_EQ(stores, 1);
  std::string dir = testing::MakeTempDir("glimpse-gpu-conv-test");
  Task task = MakeCpuTask(ParseOperator(op));
  CpuBuilderOptions build;
  build.work_dir = dir;
  build.flags = {"-O1", "-fPIC", "-shared", "-fopenmp", "-std=c++17", "-w"};
  CpuBuilder builder(build);
  CpuRunnerOptions run;
  run.min_time_s = 0.0;
  run.max_repeats = 1;
  CpuRunner runner(run);
  std::vector<MeasureResult> results =
      runner.Run({MeasureInput{&task, Config{}}},
                 builder.BuildSources({{EmitCpp(nest, "wrong_relu"), "wrong_relu"}}));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, MeasureStatus::kWrongAnswer) << results[0].error;
  std::filesystem::remove_all(dir);
}

TEST(Conv2dGpuTemplateTest, CudaKernelLaunchesTheTiling) {
  Conv2dShape shape = std::get<Conv2dShape>(
      ParseOperator("conv2d:N=2,C=8,H=12,W=12,K=16,R=3,S=3,stride=1,pad=1,bias=1,relu=1"));
  ConfigSpace space = gpu::MakeConv2dGpuSpace(shape);
  Config config = space.ConfigFromJson(
      DirectConfig({2, 2, 4, 1}, {3, 1, 4, 1}, {1, 2, 3, 2}, {2, 4}, {1, 3}, {3, 1}, 1500, 1));
  CudaKernel kernel = EmitCuda(gpu::MakeConv2dGpuNest(shape, ConfigView(space, config)), "conv");
  EXPECT_EQ(kernel.launch.grid, (std::array<int64_t, 3>{1, 3, 2 * 2}));
  EXPECT_EQ(kernel.launch.block, (std::array<int64_t, 3>{3, 4, 4}));
  EXPECT_EQ(kernel.static_shared_bytes, 4 * (4 * 6 * 12 + 8 * 4 * 3 * 1));
  EXPECT_EQ(kernel.num_inputs, 3);
  EXPECT_FALSE(kernel.has_prepare);
  EXPECT_NE(kernel.code.find("__shared__"), std::string::npos);
  EXPECT_NE(kernel.code.find("__syncthreads"), std::string::npos);
}

// Every sampled configuration of ResNet-18's layers lowers to CUDA within the limits.
TEST(Conv2dGpuTemplateTest, ResNet18ConfigurationsLowerToCuda) {
  Rng rng(3);
  int layers = 0;
  for (const ModelLayer& layer : ZooModel("resnet18")) {
    const auto* shape = std::get_if<Conv2dShape>(&layer.op);
    if (shape == nullptr) continue;
    ++layers;
    ConfigSpace space = gpu::MakeConv2dGpuSpace(*shape);
    for (int i = 0; i < 5; ++i) {
      Config config = *space.SampleValid(rng);
      // Direct configurations (winograd's are tested in winograd_gpu_test.cc with its knobs).
      while (space.ConfigToJson(config).at("algorithm") != "direct") {
        config = *space.SampleValid(rng);
      }
      std::string label = layer.name + " " + space.ConfigToString(config);
      LoopNest nest = gpu::MakeConv2dGpuNest(*shape, ConfigView(space, config));
      ASSERT_NO_THROW(ValidateGpuNest(nest)) << label;
      CudaKernel kernel = EmitCuda(nest, "conv");
      EXPECT_LE(kernel.launch.ThreadsPerBlock(), gpu::kMaxThreadsPerBlock) << label;
      EXPECT_LE(kernel.static_shared_bytes, gpu::kMaxSharedBytesPerBlock) << label;
    }
  }
  EXPECT_GE(layers, 10);
}

// The architectures the NVRTC tests compile for: sm_70/80/90 where this NVRTC has them (CUDA 13
// dropped sm_70; sm_75 stands in for the pre-Ampere generation then).
std::vector<std::string> TestArchs() {
  std::vector<std::string> supported = NvrtcSupportedArchs(), archs;
  for (const char* arch : {"sm_70", "sm_75", "sm_80", "sm_90"}) {
    if (std::find(supported.begin(), supported.end(), arch) != supported.end()) {
      archs.emplace_back(arch);
    }
  }
  if (archs.size() == 4) archs.erase(archs.begin() + 1);  // sm_70 present: no need for sm_75
  return archs;
}

// Compiles EmitCuda of `nest` for `arch`; expects success, the shared memory the nest declares
// and a register count a launch can have.
void ExpectNvrtcCompiles(const LoopNest& nest, const std::string& arch, const std::string& label) {
  CudaKernel kernel = EmitCuda(nest, "conv");
  CudaCompileResult result = CompileCuda(kernel.code, arch);
  ASSERT_TRUE(result.ok) << label << " " << arch << "\n" << result.log << "\n" << kernel.code;
  ASSERT_EQ(result.resources.count("conv"), 1u) << result.log;
  const CudaResourceUsage& usage = result.resources.at("conv");
  // The compiler aligns each shared array (16 bytes at most for floats and float4 accesses).
  EXPECT_GE(usage.shared_bytes, kernel.static_shared_bytes) << label << " " << arch;
  EXPECT_LE(usage.shared_bytes, kernel.static_shared_bytes + 32) << label << " " << arch;
  EXPECT_GT(usage.registers, 0) << label << " " << arch;
  EXPECT_LE(usage.registers, 255) << label << " " << arch;
}

TEST(Conv2dGpuTemplateTest, NvrtcCompilesSmallShapes) {
  if (!NvrtcAvailable()) GTEST_SKIP() << "NVRTC not available in this build";
  const std::string op = "conv2d:N=2,C=5,H=9,W=11,K=6,R=3,S=3,stride=2,pad=1,bias=1,relu=1";
  Conv2dShape shape = std::get<Conv2dShape>(ParseOperator(op));
  ConfigSpace space = gpu::MakeConv2dGpuSpace(shape);
  Rng rng(21);
  for (const std::string& arch : TestArchs()) {
    for (int i = 0; i < 2; ++i) {
      Config config = *space.SampleValid(rng);
      ExpectNvrtcCompiles(gpu::MakeConv2dGpuNest(shape, ConfigView(space, config)), arch,
                          op + " " + space.ConfigToString(config));
    }
  }
}

// One sampled configuration of each distinct ResNet-18 convolution, the architectures in turn.
TEST(Conv2dGpuTemplateTest, NvrtcCompilesResNet18Layers) {
  if (!NvrtcAvailable()) GTEST_SKIP() << "NVRTC not available in this build";
  std::vector<std::string> archs = TestArchs();
  ASSERT_FALSE(archs.empty());
  Rng rng(5);
  size_t compiled = 0;
  std::set<std::string> seen;
  for (const ModelLayer& layer : ZooModel("resnet18")) {
    const auto* shape = std::get_if<Conv2dShape>(&layer.op);
    if (shape == nullptr || !seen.insert(OperatorToString(layer.op)).second) continue;
    ConfigSpace space = gpu::MakeConv2dGpuSpace(*shape);
    Config config = *space.SampleValid(rng);
    // Direct configurations (winograd's are tested in winograd_gpu_test.cc with its knobs).
    while (space.ConfigToJson(config).at("algorithm") != "direct") {
      config = *space.SampleValid(rng);
    }
    ExpectNvrtcCompiles(gpu::MakeConv2dGpuNest(*shape, ConfigView(space, config)),
                        archs[compiled % archs.size()],
                        layer.name + " " + space.ConfigToString(config));
    ++compiled;
  }
  EXPECT_GE(compiled, 8u);
}

TEST(Conv2dGpuTemplateTest, HandPickedConfigurationsMatchTheReference) {
  ExpectRandomConfigurationsMatch(
      "conv2d:N=2,C=5,H=9,W=11,K=6,R=3,S=3,stride=2,pad=1,bias=1,relu=1", 0, 1,
      {DirectConfig({1, 1, 1, 6}, {1, 1, 1, 5}, {1, 1, 1, 6}, {1, 5}, {1, 3}, {1, 3}, 0, 0),
       DirectConfig({3, 1, 2, 1}, {5, 1, 1, 1}, {1, 1, 6, 1}, {5, 1}, {3, 1}, {3, 1}, 0, 0),
       DirectConfig({1, 2, 3, 1}, {1, 5, 1, 1}, {2, 1, 3, 1}, {1, 5}, {3, 1}, {1, 3}, 512, 1),
       DirectConfig({1, 3, 1, 2}, {1, 1, 5, 1}, {1, 3, 1, 2}, {5, 1}, {1, 3}, {3, 1}, 1500, 0)});
}

TEST(Conv2dGpuTemplateTest, RandomConfigurationsStridePaddingBiasReluMatch) {
  ExpectRandomConfigurationsMatch(
      "conv2d:N=2,C=5,H=9,W=11,K=6,R=3,S=3,stride=2,pad=1,bias=1,relu=1", 8, 7);
}

TEST(Conv2dGpuTemplateTest, RandomConfigurationsDilationMatch) {
  ExpectRandomConfigurationsMatch(
      "conv2d:N=2,C=3,H=11,W=10,K=4,R=3,S=3,stride=1,pad=2,dilation=2,bias=1,relu=0", 6, 13);
}

TEST(Conv2dGpuTemplateTest, RandomConfigurationsRectangularNoPaddingMatch) {
  ExpectRandomConfigurationsMatch("conv2d:N=1,C=4,H=7,W=9,K=6,R=1,S=3,stride=2,pad=0", 6, 29);
}

}  // namespace
}  // namespace glimpse
