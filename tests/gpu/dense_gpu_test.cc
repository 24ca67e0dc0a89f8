// The dense and batch_matmul GPU templates: their spaces (ResNet-18's FC layer included), the
// launch shapes and resources of their nests, their results — a GPU nest keeps sequential
// semantics, so the C++ emitter runs it on the CPU against the reference — and NVRTC compiling
// their CUDA code for several architectures.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cpu/cpu_fixtures.h"
#include "glimpse/cpu.h"
#include "glimpse/cuda.h"
#include "glimpse/error.h"
#include "glimpse/gpu.h"
#include "glimpse/random.h"

namespace glimpse {
namespace {

class DenseGpuTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("glimpse-gpu-dense-test"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs the GPU nests of `configs` (plus `random` sampled ones) of `op` on the CPU through the
  // C++ emitter; every one must match the reference.
  void ExpectCpuSimulationOk(const std::string& op_text, std::vector<Json> configs, int random,
                             uint64_t seed) {
    const Operator op = ParseOperator(op_text);
    const Task gpu_task = MakeGpuTask(op, "test GPU");
    const Task cpu_task = MakeCpuTask(op);  // the runner's reference and data come from the op
    Rng rng(seed);
    std::vector<Config> chosen;
    for (const Json& json : configs) chosen.push_back(gpu_task.space.ConfigFromJson(json));
    for (int i = 0; i < random; ++i) chosen.push_back(*gpu_task.space.SampleValid(rng));
    std::vector<KernelSource> sources;
    for (size_t i = 0; i < chosen.size(); ++i) {
      ASSERT_TRUE(gpu_task.space.IsValid(chosen[i]));
      LoopNest nest = MakeGpuNest(op, gpu_task.space, chosen[i]);
      ASSERT_NO_THROW(ValidateGpuNest(nest)) << NestToString(nest);
      sources.push_back(
          {EmitCpp(nest, "gpu_sim_" + std::to_string(i)), "gpu_sim_" + std::to_string(i)});
    }
    std::vector<MeasureInput> inputs(sources.size(), MeasureInput{&cpu_task, Config{}});
    CpuBuilder builder(testing::FastBuild(dir_));
    CpuRunner runner(testing::FastRun());
    std::vector<MeasureResult> results = runner.Run(inputs, builder.BuildSources(sources));
    ASSERT_EQ(results.size(), chosen.size());
    for (size_t i = 0; i < chosen.size(); ++i) {
      EXPECT_EQ(results[i].status, MeasureStatus::kOk)
          << op_text << " " << gpu_task.space.ConfigToString(chosen[i]) << "\n"
          << results[i].error;
    }
  }

  std::string dir_;
};

TEST_F(DenseGpuTest, DenseNestsComputeTheReferenceOnTheCpu) {
  // Odd sizes, bias and ReLU; fixed configurations cover caching with vector loads, vthreads,
  // the vectorised epilogue and full unrolling.
  ExpectCpuSimulationOk("dense:M=6,N=12,K=20,bias=1,relu=1",
                        {{{"tile_m", {1, 2, 3, 1}},
                          {"tile_n", {1, 2, 3, 2}},
                          {"tile_k", {5, 4}},
                          {"cache", 1},
                          {"vector_load", 4},
                          {"vectorize", 1},
                          {"auto_unroll_max_step", 1500}},
                         {{"tile_m", {3, 1, 1, 2}},
                          {"tile_n", {2, 1, 2, 3}},
                          {"tile_k", {2, 10}},
                          {"cache", 0},
                          {"vector_load", 1},
                          {"vectorize", 0},
                          {"auto_unroll_max_step", 0}},
                         {{"tile_m", {1, 1, 6, 1}},
                          {"tile_n", {1, 1, 12, 1}},
                          {"tile_k", {10, 2}},
                          {"cache", 1},
                          {"vector_load", 2},
                          {"vectorize", 0},
                          {"auto_unroll_max_step", 64}}},
                        10, 3);
}

TEST_F(DenseGpuTest, DenseWithOneRowComputesTheReferenceOnTheCpu) {
  ExpectCpuSimulationOk("dense:M=1,N=10,K=9", {}, 10, 5);
}

TEST_F(DenseGpuTest, BatchMatmulNestsComputeTheReferenceOnTheCpu) {
  ExpectCpuSimulationOk("batch_matmul:B=3,M=5,N=4,K=7,bias=1,relu=1",
                        {{{"tile_m", {1, 5, 1, 1}},
                          {"tile_n", {1, 1, 2, 2}},
                          {"tile_k", {1, 7}},
                          {"cache", 1},
                          {"vector_load", 1},
                          {"vectorize", 1},
                          {"auto_unroll_max_step", 512}}},
                        10, 7);
}

TEST(DenseGpuSpace, ResNetFcHasASensibleSpace) {
  // ResNet-18's classifier: one row, so only N and K are tiled.
  const Operator op = ParseOperator("dense:M=1,N=1000,K=512,bias=1");
  Task task = MakeGpuTask(op, "test GPU");
  EXPECT_EQ(task.description.at("target"), "cuda");
  EXPECT_EQ(task.device, "test GPU");
  const ConfigSpace& space = task.space;
  EXPECT_EQ(space.knobs()[space.KnobIndex("tile_m")].size(), 1u);
  EXPECT_EQ(space.knobs()[space.KnobIndex("tile_k")].size(), 10u);  // 512 = 2^9: 10 splits
  Rng rng(11);
  for (int i = 0; i < 40; ++i) {
    Config config = *space.SampleValid(rng);
    LoopNest nest = MakeGpuNest(op, space, config);
    CudaKernel kernel = EmitCuda(nest, "fc");
    EXPECT_LE(kernel.launch.ThreadsPerBlock(), 1024);
    EXPECT_LE(kernel.static_shared_bytes, 48 * 1024);
    EXPECT_EQ(kernel.launch.grid[1], 1);
    EXPECT_EQ(kernel.launch.grid[0] * kernel.launch.block[0] *
                  space.ConfigToJson(config).at("tile_n")[1].get<int64_t>() *
                  space.ConfigToJson(config).at("tile_n")[3].get<int64_t>(),
              1000);
    EXPECT_EQ(kernel.num_inputs, 3);
  }
}

TEST(DenseGpuSpace, RestrictionsKeepLaunchesWithinTheLimits) {
  const Operator op = ParseOperator("dense:M=256,N=256,K=256");
  ConfigSpace space = MakeGpuSpace(op);
  // 32 × 64 threads: out of the space, and refused by the template if asked anyway.
  Json big = {{"tile_m", {8, 1, 32, 1}},  {"tile_n", {4, 1, 64, 1}},
              {"tile_k", {16, 16}},       {"cache", 1},
              {"vector_load", 1},         {"vectorize", 0},
              {"auto_unroll_max_step", 0}};
  Config config = space.ConfigFromJson(big);
  EXPECT_FALSE(space.IsValid(config));
  EXPECT_THROW(MakeGpuNest(op, space, config), Error);
  // Shared tiles of 4·256·(256 + 16) bytes: too much shared memory.
  Json shared = {{"tile_m", {1, 1, 16, 16}}, {"tile_n", {16, 1, 16, 1}},
                 {"tile_k", {1, 256}},       {"cache", 1},
                 {"vector_load", 1},         {"vectorize", 0},
                 {"auto_unroll_max_step", 0}};
  EXPECT_FALSE(space.IsValid(space.ConfigFromJson(shared)));
  shared["cache"] = 0;
  EXPECT_TRUE(space.IsValid(space.ConfigFromJson(shared)));
  CudaKernel direct = EmitCuda(MakeGpuNest(op, space, space.ConfigFromJson(shared)), "d");
  EXPECT_EQ(direct.static_shared_bytes, 0);
  EXPECT_EQ(direct.launch.block, (std::array<int64_t, 3>{16, 16, 1}));
}

TEST(DenseGpuSpace, CachedTilesAndVectorLoadsShowInTheCode) {
  const Operator op = ParseOperator("dense:M=64,N=64,K=64,bias=1,relu=1");
  ConfigSpace space = MakeGpuSpace(op);
  Json json = {{"tile_m", {4, 1, 8, 2}},
               {"tile_n", {2, 2, 8, 2}},
               {"tile_k", {4, 16}},
               {"cache", 1},
               {"vector_load", 4},
               {"vectorize", 1},
               {"auto_unroll_max_step", 1500}};
  CudaKernel k = EmitCuda(MakeGpuNest(op, space, space.ConfigFromJson(json)), "dense_k");
  EXPECT_EQ(k.launch.grid, (std::array<int64_t, 3>{2, 4, 1}));
  EXPECT_EQ(k.launch.block, (std::array<int64_t, 3>{8, 8, 1}));
  EXPECT_EQ(k.static_shared_bytes, 4 * 16 * (16 + 32));
  EXPECT_NE(k.code.find("__shared__ __align__(16) float As[256];"), std::string::npos) << k.code;
  EXPECT_NE(k.code.find("float acc[8];"), std::string::npos) << k.code;
  // Global loads of the tiles are float4 (k contiguous, K and tile_k_1 multiples of 4) …
  EXPECT_NE(k.code.find("reinterpret_cast<const float4*>(&A["), std::string::npos) << k.code;
  EXPECT_NE(k.code.find("reinterpret_cast<const float4*>(&B["), std::string::npos) << k.code;
  // … and the shared B tile is read, and C written, two floats at a time.
  EXPECT_NE(k.code.find("reinterpret_cast<const float2*>(&Bs["), std::string::npos) << k.code;
  EXPECT_NE(k.code.find("reinterpret_cast<float2*>(&C["), std::string::npos) << k.code;
  EXPECT_GE(std::count(k.code.begin(), k.code.end(), '\n'), 20);
}

TEST(DenseGpuSpace, AutoUnrollUnrollsTheReductionTileWithinTheStep) {
  const Operator op = ParseOperator("dense:M=8,N=8,K=32");
  ConfigSpace space = MakeGpuSpace(op);
  // An accumulator of 2 × 2 per thread and k1 = 8: 32 iterations of the inner body.
  auto k1_kind = [&](int64_t step) {
    Json json = {{"tile_m", {2, 1, 2, 2}},
                 {"tile_n", {2, 1, 2, 2}},
                 {"tile_k", {4, 8}},
                 {"cache", 1},
                 {"vector_load", 1},
                 {"vectorize", 0},
                 {"auto_unroll_max_step", step}};
    LoopNest nest = MakeGpuNest(op, space, space.ConfigFromJson(json));
    EXPECT_EQ(nest.FindLoop("mi").kind, LoopKind::kUnrolled);  // always: acc in registers
    EXPECT_EQ(nest.FindLoop("k0").kind, LoopKind::kSerial);    // holds the barriers
    return nest.FindLoop("k1").kind;
  };
  EXPECT_EQ(k1_kind(0), LoopKind::kSerial);
  EXPECT_EQ(k1_kind(16), LoopKind::kSerial);
  EXPECT_EQ(k1_kind(64), LoopKind::kUnrolled);
  EXPECT_EQ(k1_kind(1500), LoopKind::kUnrolled);
}

TEST(DenseGpuSpace, KernelsCompileWithNvrtc) {
  if (!NvrtcAvailable()) GTEST_SKIP() << "NVRTC not available in this build";
  const std::vector<std::string> supported = NvrtcSupportedArchs();
  struct Case {
    std::string op;
    uint64_t seed;
  };
  int compiled = 0;
  for (const Case& c :
       {Case{"dense:M=1,N=1000,K=512,bias=1", 1}, Case{"dense:M=64,N=96,K=80,relu=1", 2},
        Case{"batch_matmul:B=12,M=128,N=128,K=64", 3}}) {
    const Operator op = ParseOperator(c.op);
    ConfigSpace space = MakeGpuSpace(op);
    Rng rng(c.seed);
    for (const std::string arch : {"sm_75", "sm_80", "sm_90"}) {
      // CUDA 13's NVRTC no longer targets sm_70; sm_75 is the oldest it has.
      if (std::find(supported.begin(), supported.end(), arch) == supported.end()) continue;
      for (int i = 0; i < 2; ++i) {
        Config config = *space.SampleValid(rng);
        CudaKernel k = EmitCuda(MakeGpuNest(op, space, config), "k");
        CudaCompileResult r = CompileCuda(k.code, arch);
        ASSERT_TRUE(r.ok) << c.op << " " << space.ConfigToString(config) << " " << arch << "\n"
                          << r.log << "\n"
                          << k.code;
        ASSERT_EQ(r.resources.count("k"), 1u) << r.log;
        EXPECT_GT(r.resources.at("k").registers, 0);
        // ptxas aligns each 16-byte-aligned tile: at most 15 bytes of padding per tile (2 tiles).
        EXPECT_GE(r.resources.at("k").shared_bytes, k.static_shared_bytes) << r.log;
        EXPECT_LT(r.resources.at("k").shared_bytes, k.static_shared_bytes + 2 * 16) << r.log;
        ++compiled;
      }
    }
  }
  EXPECT_GT(compiled, 0) << "none of sm_75, sm_80, sm_90 is supported by this NVRTC";
}

}  // namespace
}  // namespace glimpse
