// The winograd conv2d GPU template: where it applies, its knobs and limits, the structure of its
// nests (ValidateGpuNest, literal tables, the prepare body, guarded stores), its arithmetic — each
// nest run on this CPU through the C++ emitter and checked against the reference by the CPU
// worker — and NVRTC compiles of sampled configurations.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cuda/template_util.h"
#include "glimpse/cpu.h"
#include "glimpse/cuda.h"
#include "glimpse/error.h"
#include "glimpse/gpu.h"
#include "glimpse/model_zoo.h"
#include "glimpse/random.h"
#include "glimpse/reference.h"
#include "test_paths.h"

namespace glimpse {
namespace {

Conv2dShape Shape(const std::string& text) { return std::get<Conv2dShape>(ParseOperator(text)); }

// `count` random valid winograd configurations of the space of MakeGpuSpace(op).
std::vector<Config> SampleWinograd(const ConfigSpace& space, int count, uint64_t seed) {
  std::vector<Config> configs;
  Rng rng(seed);
  for (int tries = 0; static_cast<int>(configs.size()) < count && tries < 100000; ++tries) {
    Config config = *space.SampleValid(rng);
    if (space.ConfigToJson(config).at("algorithm") == "winograd") configs.push_back(config);
  }
  EXPECT_EQ(static_cast<int>(configs.size()), count);
  return configs;
}

// Builds the C++ of every nest and runs it in the CPU worker, which checks it against the
// reference of `op_text` (the rule of docs/cpu-tuning.md, rtol 1e-3); every one must pass.
void ExpectSimulationMatches(const std::string& op_text, const std::vector<LoopNest>& nests,
                             const std::vector<std::string>& labels) {
  std::string dir = testing::MakeTempDir("glimpse-gpu-winograd-test");
  Task task = MakeCpuTask(ParseOperator(op_text));
  std::vector<KernelSource> sources;
  for (size_t i = 0; i < nests.size(); ++i) {
    std::string symbol = "wino_sim_" + std::to_string(i);
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

// Random winograd configurations of `op_text` (plus `extra` as JSON) run on the CPU.
void ExpectRandomConfigurationsMatch(const std::string& op_text, int count, uint64_t seed,
                                     const std::vector<Json>& extra = {}) {
  const Operator op = ParseOperator(op_text);
  ConfigSpace space = MakeGpuSpace(op);
  std::vector<Config> configs = SampleWinograd(space, count, seed);
  for (const Json& json : extra) {
    Json full = space.ConfigToJson(configs.front());
    for (const auto& [knob, value] : json.items()) full[knob] = value;
    configs.push_back(space.ConfigFromJson(full));
  }
  std::vector<LoopNest> nests;
  std::vector<std::string> labels;
  for (const Config& config : configs) {
    std::string label = space.ConfigToString(config);
    LoopNest nest = MakeGpuNest(op, space, config);
    ASSERT_NO_THROW(ValidateGpuNest(nest)) << label;
    nests.push_back(std::move(nest));
    labels.push_back(label);
  }
  ExpectSimulationMatches(op_text, nests, labels);
}

// ---- The two IR features winograd needs, in the CUDA emitter: a literal table in constant
// memory and a guarded store (out[r][i] = L[r][i] · x[i], i < 4 over out[2][3]).
LoopNest GuardedLiteralNest() {
  using E = AffineExpr;
  LoopNest nest;
  nest.name = "scaled_rows";
  int x = nest.AddTensor({"x", {4}, "I", DType::kFloat32, TensorRole::kInput, 0});
  int l = nest.AddTensor({"L", {2, 4}, "RI", DType::kFloat32, TensorRole::kLiteral});
  nest.tensors[l].values = {0.1f, -1.5f, 2.0f, 7.0f, 1e-3f, 3.0f, -0.125f, 9.0f};
  int out = nest.AddTensor({"out", {2, 3}, "RI", DType::kFloat32, TensorRole::kOutput});
  Access dst{out, {E::Var("r"), E::Var("i")}, /*zero_outside=*/true};
  nest.body.push_back(Node::MakeLoop(
      {"r", 2, LoopKind::kBlockX},
      {Node::MakeLoop(
          {"i", 4, LoopKind::kThreadX},
          {Node::MakeStmt(Stmt(StmtKind::kZero, dst)),
           Node::MakeStmt(Stmt(StmtKind::kMultiplyAdd, dst, Access{l, {E::Var("r"), E::Var("i")}},
                               Access{x, {E::Var("i")}}))})}));
  return nest;
}

TEST(WinogradGpuTemplateTest, EmitCudaWritesConstantTablesAndGuardedStores) {
  CudaKernel kernel = EmitCuda(GuardedLiteralNest(), "k");
  const std::string& code = kernel.code;
  EXPECT_NE(code.find("__constant__ const float L[8] = {0x1.99999ap-4f, -0x1.8p+0f,"),
            std::string::npos)
      << code;
  EXPECT_NE(code.find("if ((i) < 3) { out[3 * r + i] = 0.0f; }"), std::string::npos) << code;
  EXPECT_NE(code.find("if ((i) < 3) { out[3 * r + i] += L[4 * r + i] * x[i]; }"), std::string::npos)
      << code;
  if (NvrtcAvailable()) {
    CudaCompileResult result = CompileCuda(code, NvrtcSupportedArchs().front());
    EXPECT_TRUE(result.ok) << result.log << "\n" << code;
  }
}

TEST(WinogradGpuTemplateTest, GuardedStoreInAVectorisedLoopIsGuardedPerLane) {
  LoopNest nest = GuardedLiteralNest();
  // i as a vectorised loop inside one thread: lanes 0..3, lane 3 outside the output.
  nest.body[0].body[0].loop.kind = LoopKind::kVectorized;
  nest.body[0].body[0] = Node::MakeLoop({"t", 1, LoopKind::kThreadX}, {nest.body[0].body[0]});
  CudaKernel kernel = EmitCuda(nest, "k");
  EXPECT_NE(kernel.code.find("if ((3) < 3)"), std::string::npos) << kernel.code;
  EXPECT_EQ(kernel.code.find("reinterpret_cast<float4*>"), std::string::npos) << kernel.code;
}

TEST(WinogradGpuTemplateTest, AppliesToThreeByThreeStrideOneOnly) {
  EXPECT_TRUE(gpu::Conv2dWinogradApplies(Shape("conv2d:N=1,C=8,H=7,W=7,K=8,R=3,S=3,pad=1")));
  EXPECT_TRUE(gpu::Conv2dWinogradApplies(Shape("conv2d:N=2,C=8,H=9,W=5,K=8,R=3,S=3,pad=0")));
  EXPECT_FALSE(
      gpu::Conv2dWinogradApplies(Shape("conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,stride=2,pad=1")));
  EXPECT_FALSE(gpu::Conv2dWinogradApplies(Shape("conv2d:N=1,C=8,H=8,W=8,K=8,R=1,S=1")));
  EXPECT_FALSE(
      gpu::Conv2dWinogradApplies(Shape("conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,pad=2,dilation=2")));
  EXPECT_FALSE(gpu::Conv2dWinogradApplies(Shape("conv2d:N=1,C=8,H=8,W=8,K=8,R=5,S=5,pad=2")));
}

TEST(WinogradGpuTemplateTest, SpaceOffersBothAlgorithmsWhereWinogradApplies) {
  const Operator op = ParseOperator("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1");
  ConfigSpace space = MakeGpuSpace(op);
  const Knob& algorithm = space.knobs()[space.KnobIndex("algorithm")];
  ASSERT_EQ(algorithm.size(), 2u);
  EXPECT_EQ(std::get<std::string>(algorithm.ValueAt(1)), "winograd");
  for (const char* knob : {"tile_f", "tile_rc", "tile_th", "tile_tw", "cache_u", "cache_input"}) {
    EXPECT_NO_THROW(space.KnobIndex(knob)) << knob;
  }
  // tile_th splits the 28 rows of 2×2 output tiles.
  const Knob& tile_th = space.knobs()[space.KnobIndex("tile_th")];
  for (size_t i = 0; i < tile_th.size(); ++i) {
    std::vector<int64_t> parts = std::get<std::vector<int64_t>>(tile_th.ValueAt(i));
    ASSERT_EQ(parts.size(), 4u);
    EXPECT_EQ(parts[0] * parts[1] * parts[2] * parts[3], 28);
  }
  // A stride-2 layer keeps the direct space as it is.
  const Operator strided = ParseOperator("conv2d:N=1,C=64,H=56,W=56,K=128,R=3,S=3,stride=2,pad=1");
  ConfigSpace direct = MakeGpuSpace(strided);
  EXPECT_EQ(direct.knobs()[direct.KnobIndex("algorithm")].size(), 1u);
  EXPECT_THROW(direct.KnobIndex("tile_th"), Error);
}

// A winograd configuration of the 56×56 layer, overriding the knobs given.
Config WinogradConfig(const ConfigSpace& space, const Json& knobs) {
  Json json = space.ConfigToJson(SampleWinograd(space, 1, 7).front());
  for (const auto& [knob, value] : knobs.items()) json[knob] = value;
  return space.ConfigFromJson(json);
}

TEST(WinogradGpuTemplateTest, SpaceRestrictsThreadsAccumulatorsAndSharedMemory) {
  const Operator op = ParseOperator("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1");
  ConfigSpace space = MakeGpuSpace(op);
  const Json sane = {{"tile_f", {4, 2, 8, 1}},
                     {"tile_th", {7, 1, 4, 1}},
                     {"tile_tw", {7, 1, 4, 1}},
                     {"tile_rc", {16, 4}},
                     {"cache_u", 1},
                     {"cache_input", 1}};
  EXPECT_TRUE(space.IsValid(WinogradConfig(space, sane)));
  // 64 × 4 × 7 = 1792 threads per block.
  Json threads = sane;
  threads["tile_f"] = {1, 1, 64, 1};
  threads["tile_tw"] = {1, 1, 7, 4};
  EXPECT_FALSE(space.IsValid(WinogradConfig(space, threads)));
  // 16 floats × 8 channels × 4 tiles = 512 accumulators, over 256; 4 channels × 1 tile pass.
  Json accumulators = sane;
  accumulators["tile_f"] = {8, 1, 1, 8};
  accumulators["tile_th"] = {7, 2, 1, 2};
  EXPECT_FALSE(space.IsValid(WinogradConfig(space, accumulators)));
  accumulators["tile_f"] = {16, 1, 1, 4};
  accumulators["tile_th"] = {7, 1, 4, 1};
  EXPECT_TRUE(space.IsValid(WinogradConfig(space, accumulators)));
  // Cached U of 16 × 64 channels × 64 input channels floats = 256 KiB of shared memory.
  Json shared = sane;
  shared["tile_f"] = {1, 1, 8, 8};
  shared["tile_th"] = {28, 1, 1, 1};
  shared["tile_rc"] = {1, 64};
  EXPECT_FALSE(space.IsValid(WinogradConfig(space, shared)));
  shared["cache_u"] = 0;
  shared["cache_input"] = 0;
  EXPECT_TRUE(space.IsValid(WinogradConfig(space, shared)));
}

TEST(WinogradGpuTemplateTest, NestHasLiteralTablesPrepareAndGuardedStoresWhereOdd) {
  for (const char* text : {"conv2d:N=1,C=8,H=7,W=7,K=8,R=3,S=3,pad=1,bias=1",
                           "conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,pad=1,bias=1"}) {
    const Operator op = ParseOperator(text);
    ConfigSpace space = MakeGpuSpace(op);
    Config config = SampleWinograd(space, 1, 3).front();
    LoopNest nest = MakeGpuNest(op, space, config);
    ASSERT_NO_THROW(ValidateGpuNest(nest));
    std::vector<std::string> literals;
    for (const TensorDecl& t : nest.tensors) {
      if (t.role == TensorRole::kLiteral) literals.push_back(t.name);
    }
    EXPECT_EQ(literals, (std::vector<std::string>{"Bt", "At", "GG"}));
    EXPECT_FALSE(nest.prepare.empty());
    CudaKernel kernel = EmitCuda(nest, "wino");
    EXPECT_TRUE(kernel.has_prepare);
    EXPECT_EQ(kernel.prepared_floats, 16 * 8 * 8);
    EXPECT_NE(kernel.code.find("__constant__ const float Bt[16]"), std::string::npos);
    // 7 outputs: the last 2×2 tile overhangs, so the store is guarded; 8: it never is.
    const bool odd = Shape(text).h == 7;
    EXPECT_EQ(kernel.code.find("if ((") != std::string::npos, odd) << kernel.code;
  }
}

TEST(WinogradGpuTemplateTest, RefusesShapesAndSpacesItDoesNotApplyTo) {
  const std::string strided = "conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,stride=2,pad=1";
  ConfigSpace space = gpu::MakeConv2dGpuSpace(Shape(strided));
  Rng rng(1);
  Config config = *space.SampleValid(rng);
  try {
    gpu::MakeWinogradGpuNest(Shape(strided), ConfigView(space, config));
    FAIL() << "winograd instantiated for a stride-2 layer";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("stride 2"), std::string::npos) << message;
    EXPECT_NE(message.find("accepted: direct"), std::string::npos) << message;
  }
}

// The CPU simulation: odd and even shapes, padding 0 and 1, bias and ReLU, batch 2, every
// combination of the cache knobs among the samples.
TEST(WinogradGpuTemplateTest, SimulationMatchesReferenceOddShapesPadOne) {
  ExpectRandomConfigurationsMatch("conv2d:N=2,C=5,H=9,W=7,K=6,R=3,S=3,stride=1,pad=1,bias=1,relu=1",
                                  6, 11,
                                  {{{"cache_u", 0}, {"cache_input", 0}},
                                   {{"cache_u", 1}, {"cache_input", 1}},
                                   {{"cache_u", 1}, {"cache_input", 0}},
                                   {{"cache_u", 0}, {"cache_input", 1}}});
}

TEST(WinogradGpuTemplateTest, SimulationMatchesReferencePadZero) {
  ExpectRandomConfigurationsMatch("conv2d:N=1,C=6,H=11,W=8,K=4,R=3,S=3,stride=1,pad=0", 6, 13);
  ExpectRandomConfigurationsMatch("conv2d:N=2,C=3,H=6,W=6,K=5,R=3,S=3,stride=1,pad=0,relu=1", 4,
                                  17);
}

TEST(WinogradGpuTemplateTest, SimulationMatchesReferenceSmallResNetLike) {
  // ResNet-18's 7×7 layer shape, fewer output channels.
  ExpectRandomConfigurationsMatch("conv2d:N=1,C=64,H=7,W=7,K=16,R=3,S=3,stride=1,pad=1,bias=1", 4,
                                  19);
  // ResNet-18's longest reduction (C = 512): winograd's rounding stays within the rule.
  ExpectRandomConfigurationsMatch("conv2d:N=1,C=512,H=7,W=7,K=4,R=3,S=3,stride=1,pad=1", 2, 31);
}

// The smallest rtol under which the CPU run of `nest` passes the reference rule of
// docs/cpu-tuning.md (inputs uniform in [−1, 1]); the runner uses 1e-3.
double SmallestPassingRtol(const std::string& op_text, const LoopNest& nest) {
  const Operator op = ParseOperator(op_text);
  std::string dir = testing::MakeTempDir("glimpse-winograd-rounding");
  CpuBuilderOptions options;
  options.work_dir = dir;
  options.flags = {"-O1", "-fPIC", "-shared", "-std=c++17", "-w"};
  std::vector<BuildResult> builds = CpuBuilder(options).BuildSources({{EmitCpp(nest, "k"), "k"}});
  EXPECT_EQ(builds.at(0).status, MeasureStatus::kOk) << builds[0].error;
  if (builds[0].status != MeasureStatus::kOk) return 1.0;
  const std::string& artifact = builds[0].artifact;  // "<library>:<symbol>"
  void* library = dlopen(artifact.substr(0, artifact.rfind(':')).c_str(), RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(library, nullptr) << dlerror();
  if (library == nullptr) return 1.0;
  using Kernel = void (*)(const float* const*, float*);
  using Prepare = void (*)(const float* const*, float*);
  using PreparedSize = int64_t (*)();
  auto kernel = reinterpret_cast<Kernel>(dlsym(library, "k"));
  auto prepare = reinterpret_cast<Prepare>(dlsym(library, "k_prepare"));
  auto prepared_size = reinterpret_cast<PreparedSize>(dlsym(library, "k_prepared_size"));
  std::mt19937 generator(5);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<std::vector<float>> inputs;
  for (const std::vector<int64_t>& shape : OperatorInputShapes(op)) {
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    inputs.emplace_back(count);
    for (float& x : inputs.back()) x = uniform(generator);
  }
  std::vector<const float*> pointers;
  for (const auto& input : inputs) pointers.push_back(input.data());
  std::vector<float> prepared;
  if (prepare != nullptr) {
    prepared.resize(prepared_size());
    prepare(pointers.data(), prepared.data());
    pointers.push_back(prepared.data());
  }
  const Conv2dShape shape = std::get<Conv2dShape>(op);
  std::vector<float> out(shape.n * shape.k * shape.OutH() * shape.OutW());
  kernel(pointers.data(), out.data());
  dlclose(library);
  std::filesystem::remove_all(dir);
  const ReferenceResult reference = ComputeReference(op, inputs);
  double lo = 1e-9, hi = 1.0;  // bisection in log scale: hi passes, lo does not
  for (int i = 0; i < 40; ++i) {
    const double mid = std::sqrt(lo * hi);
    const bool pass = FirstMismatch(reference, out.data(), static_cast<int64_t>(out.size()),
                                    OperatorReductionLength(op), mid) < 0;
    (pass ? hi : lo) = mid;
  }
  return hi;
}

// Winograd's rounding differs from direct's, and both sit far below the runner's rtol of 1e-3 at
// ResNet-18's longest reduction (C = 512): the figures of docs/gpu-tuning.md ("Rounding").
TEST(WinogradGpuTemplateTest, RoundingIsFarBelowTheRunnersTolerance) {
  const std::string text = "conv2d:N=1,C=512,H=7,W=7,K=16,R=3,S=3,stride=1,pad=1";
  const Operator op = ParseOperator(text);
  ConfigSpace space = MakeGpuSpace(op);
  const double winograd =
      SmallestPassingRtol(text, MakeGpuNest(op, space, SampleWinograd(space, 1, 37).front()));
  Rng rng(41);
  Config direct = *space.SampleValid(rng);
  while (space.ConfigToJson(direct).at("algorithm") != "direct") direct = *space.SampleValid(rng);
  const double direct_rtol = SmallestPassingRtol(text, MakeGpuNest(op, space, direct));
  std::printf("smallest passing rtol at C = 512: winograd %.3g, direct %.3g (runner: 1e-3)\n",
              winograd, direct_rtol);
  EXPECT_LT(winograd, 1e-4);
  EXPECT_LT(direct_rtol, 1e-4);
}

// The architectures the NVRTC tests compile for (as in conv2d_gpu_test.cc).
std::vector<std::string> TestArchs() {
  std::vector<std::string> supported = NvrtcSupportedArchs(), archs;
  for (const char* arch : {"sm_70", "sm_75", "sm_80", "sm_90"}) {
    if (std::find(supported.begin(), supported.end(), arch) != supported.end()) {
      archs.emplace_back(arch);
    }
  }
  if (archs.size() == 4) archs.erase(archs.begin() + 1);
  return archs;
}

void ExpectNvrtcCompiles(const LoopNest& nest, const std::string& arch, const std::string& label) {
  CudaKernel kernel = EmitCuda(nest, "wino");
  CudaCompileResult result = CompileCuda(kernel.code, arch);
  ASSERT_TRUE(result.ok) << label << " " << arch << "\n" << result.log << "\n" << kernel.code;
  ASSERT_EQ(result.resources.count("wino"), 1u) << result.log;
  ASSERT_EQ(result.resources.count("wino_prepare"), 1u) << result.log;
  const CudaResourceUsage& usage = result.resources.at("wino");
  EXPECT_GE(usage.shared_bytes, kernel.static_shared_bytes) << label << " " << arch;
  EXPECT_LE(usage.shared_bytes, kernel.static_shared_bytes + 32) << label << " " << arch;
  EXPECT_GT(usage.registers, 0) << label << " " << arch;
  EXPECT_LE(usage.registers, 255) << label << " " << arch;
}

TEST(WinogradGpuTemplateTest, NvrtcCompilesSmallShapes) {
  if (!NvrtcAvailable()) GTEST_SKIP() << "NVRTC not available in this build";
  const std::string text = "conv2d:N=2,C=5,H=9,W=7,K=6,R=3,S=3,stride=1,pad=1,bias=1,relu=1";
  const Operator op = ParseOperator(text);
  ConfigSpace space = MakeGpuSpace(op);
  std::vector<Config> configs = SampleWinograd(space, 6, 23);
  std::vector<std::string> archs = TestArchs();
  ASSERT_FALSE(archs.empty());
  for (size_t i = 0; i < configs.size(); ++i) {
    ExpectNvrtcCompiles(MakeGpuNest(op, space, configs[i]), archs[i % archs.size()],
                        text + " " + space.ConfigToString(configs[i]));
  }
}

// Two sampled configurations of each of ResNet-18's 3×3 stride-1 convolutions.
TEST(WinogradGpuTemplateTest, NvrtcCompilesResNet18Layers) {
  if (!NvrtcAvailable()) GTEST_SKIP() << "NVRTC not available in this build";
  std::vector<std::string> archs = TestArchs();
  ASSERT_FALSE(archs.empty());
  size_t compiled = 0;
  std::set<std::string> seen;
  for (const ModelLayer& layer : ZooModel("resnet18")) {
    const auto* shape = std::get_if<Conv2dShape>(&layer.op);
    if (shape == nullptr || !gpu::Conv2dWinogradApplies(*shape) ||
        !seen.insert(OperatorToString(layer.op)).second) {
      continue;
    }
    ConfigSpace space = MakeGpuSpace(layer.op);
    for (const Config& config : SampleWinograd(space, 2, 29 + compiled)) {
      ExpectNvrtcCompiles(MakeGpuNest(layer.op, space, config), archs[compiled % archs.size()],
                          layer.name + " " + space.ConfigToString(config));
      ++compiled;
    }
  }
  EXPECT_GE(compiled, 8u);  // 56×56, 28×28, 14×14 and 7×7 layers
}

}  // namespace
}  // namespace glimpse
