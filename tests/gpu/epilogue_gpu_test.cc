// The fused epilogues of every GPU template — bias, the residual add of a shortcut, then ReLU or
// ReLU6 — as a model compiled for CUDA runs them (glimpse compile --target cuda fuses them as
// ONNX Runtime does): each kind's nests, for sampled configurations of both conv2d algorithms, run
// on this CPU through the C++ emitter and checked by the CPU worker against the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cpu/cpu_fixtures.h"
#include "glimpse/cpu.h"
#include "glimpse/gpu.h"
#include "glimpse/loop_nest.h"
#include "glimpse/random.h"

namespace glimpse {
namespace {

class GpuEpilogueTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("glimpse-gpu-epilogue-test"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // `per_algorithm` sampled configurations of each value of the space's `algorithm` knob (or of
  // the space, without one), simulated; every one must match the reference.
  void ExpectEpilogueComputed(const std::string& op_text, int per_algorithm, uint64_t seed) {
    SCOPED_TRACE(op_text);
    const Operator op = ParseOperator(op_text);
    const Task gpu_task = MakeGpuTask(op, "test GPU");
    const Task cpu_task = MakeCpuTask(op);  // the runner's reference and data come from the op
    const ConfigSpace& space = gpu_task.space;
    std::vector<std::string> algorithms = {""};
    const auto& knobs = space.knobs();
    if (std::any_of(knobs.begin(), knobs.end(),
                    [](const Knob& knob) { return knob.name() == "algorithm"; })) {
      algorithms.clear();
      const Knob& knob = space.knobs()[space.KnobIndex("algorithm")];
      for (size_t v = 0; v < knob.size(); ++v) {
        algorithms.push_back(std::get<std::string>(knob.ValueAt(v)));
      }
    }
    Rng rng(seed);
    std::vector<Config> chosen;
    for (const std::string& algorithm : algorithms) {
      int found = 0;
      for (int tries = 0; tries < 100000 && found < per_algorithm; ++tries) {
        Config config = *space.SampleValid(rng);
        if (!algorithm.empty() && space.ConfigToJson(config).at("algorithm") != algorithm) {
          continue;
        }
        chosen.push_back(config);
        ++found;
      }
      EXPECT_EQ(found, per_algorithm) << algorithm;
    }
    std::vector<KernelSource> sources;
    for (size_t i = 0; i < chosen.size(); ++i) {
      const LoopNest nest = MakeGpuNest(op, space, chosen[i]);
      ASSERT_NO_THROW(ValidateGpuNest(nest)) << NestToString(nest);
      const std::string symbol = "gpu_epilogue_" + std::to_string(i);
      sources.push_back({EmitCpp(nest, symbol), symbol});
    }
    std::vector<MeasureInput> inputs(sources.size(), MeasureInput{&cpu_task, Config{}});
    CpuBuilder builder(testing::FastBuild(dir_));
    CpuRunner runner(testing::FastRun());
    const std::vector<MeasureResult> results = runner.Run(inputs, builder.BuildSources(sources));
    ASSERT_EQ(results.size(), chosen.size());
    for (size_t i = 0; i < chosen.size(); ++i) {
      EXPECT_EQ(results[i].status, MeasureStatus::kOk) << space.ConfigToString(chosen[i]) << "\n"
                                                       << results[i].error;
    }
  }

  std::string dir_;
};

TEST_F(GpuEpilogueTest, ConvolutionsAddTheResidualThenClip) {
  // 3×3 stride 1: direct and winograd; odd sizes so that tiles leave remainders.
  ExpectEpilogueComputed("conv2d:N=1,C=6,H=9,W=7,K=10,R=3,S=3,pad=1,bias=1,residual=1,relu6=1", 3,
                         1);
  ExpectEpilogueComputed("conv2d:N=1,C=6,H=9,W=7,K=10,R=3,S=3,pad=1,bias=1,relu=1,residual=1", 2,
                         2);
  // A strided 1×1 projection shortcut, as ResNet's.
  ExpectEpilogueComputed("conv2d:N=1,C=8,H=10,W=10,K=12,R=1,S=1,stride=2,bias=1,residual=1", 3, 3);
}

TEST_F(GpuEpilogueTest, DepthwiseConvolutionsAddTheResidualThenClip) {
  ExpectEpilogueComputed("depthwise_conv2d:N=1,C=12,H=9,W=11,R=3,S=3,pad=1,bias=1,relu6=1", 3, 4);
  ExpectEpilogueComputed(
      "depthwise_conv2d:N=1,C=12,H=9,W=11,R=3,S=3,stride=2,pad=1,bias=1,residual=1,relu=1", 3, 5);
}

TEST_F(GpuEpilogueTest, MatrixProductsAddTheResidualThenClip) {
  ExpectEpilogueComputed("dense:M=3,N=20,K=13,bias=1,residual=1,relu6=1", 3, 6);
  ExpectEpilogueComputed("batch_matmul:B=2,M=5,N=6,K=7,bias=1,residual=1,relu=1", 3, 7);
}

}  // namespace
}  // namespace glimpse
