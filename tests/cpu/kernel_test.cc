// Generated kernels of both templates, compiled and checked against the reference in the worker.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cpu_fixtures.h"
#include "glimpse/cpu.h"
#include "glimpse/random.h"

namespace glimpse {
namespace {

class KernelTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("glimpse-cpu-test"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Builds and runs `count` random configurations of `op` (plus `extra`); all must be ok.
  void ExpectAllOk(const std::string& op, int count, uint64_t seed,
                   const std::vector<Json>& extra = {}) {
    Task task = MakeCpuTask(ParseCpuOp(op));
    Rng rng(seed);
    std::vector<MeasureInput> inputs;
    for (const Json& config : extra) inputs.push_back({&task, task.space.ConfigFromJson(config)});
    for (int i = 0; i < count; ++i) inputs.push_back({&task, *task.space.SampleValid(rng)});
    CpuBuilder builder(testing::FastBuild(dir_));
    CpuRunner runner(testing::FastRun());
    std::vector<BuildResult> builds = builder.Build(inputs);
    std::vector<MeasureResult> results = runner.Run(inputs, builds);
    ASSERT_EQ(results.size(), inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::string config = task.space.ConfigToString(inputs[i].config);
      EXPECT_EQ(builds[i].status, MeasureStatus::kOk) << config << "\n" << builds[i].error;
      EXPECT_EQ(results[i].status, MeasureStatus::kOk) << config << "\n" << results[i].error;
      if (!results[i].ok()) continue;
      EXPECT_GE(results[i].samples_s.size(), 3u);
      EXPECT_GT(results[i].time_s, 0.0);
      EXPECT_GE(results[i].cost_s, results[i].compile_time_s);
    }
    EXPECT_EQ(runner.workers_started(), 1);
  }

  std::string dir_;
};

TEST_F(KernelTest, DenseConfigurationsMatchTheReference) {
  ExpectAllOk("dense:M=6,N=20,K=24,bias=1,relu=1", 5, 11,
              {{{"tile_m", {1, 3, 2}}, {"tile_n", {1, 5, 4}}, {"tile_k", {3, 8}},
                {"inner_axis", "k"}, {"order", {4, 3, 2, 1, 0}}, {"parallel", "mn"},
                {"vectorize", 1}, {"unroll", 1}, {"pack_b", 1}}});
}

TEST_F(KernelTest, Conv2dConfigurationsMatchTheReference) {
  ExpectAllOk("conv2d:N=1,C=4,H=9,W=9,K=8,R=3,S=3,stride=2,pad=1,bias=1,relu=1", 4, 12,
              {{{"tile_k", {2, 2, 2}}, {"tile_oh", {1, 5}}, {"tile_ow", {1, 1, 5}},
                {"tile_c", {2, 2}}, {"order", {4, 3, 2, 1, 0}}, {"parallel", "k_oh"},
                {"vectorize", 1}, {"unroll", 1}, {"padding", "copy"}}});
  ExpectAllOk("conv2d:N=2,C=3,H=7,W=8,K=4,R=2,S=3,stride=1,pad=0,dilation=2", 3, 13);
}

}  // namespace
}  // namespace glimpse
