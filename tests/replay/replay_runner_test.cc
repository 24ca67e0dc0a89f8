// ReplayRunner: recorded means, seeded noise, failures, missing configurations, build failures,
// costs and pacing.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "glimpse/replay.h"
#include "replay_test_util.h"

namespace glimpse {
namespace {

using testing::TestDataPath;

// Compile times (ms) of the six entries of tests/data/pnpoly_small.json, sorted, are 0.03, 107.10,
// 110.34, 111.89, 114.33, 116.53: the median is the mean of the middle two.
constexpr double kMedianCompileS = 0.5 * (110.34165602177382 + 111.88561655580997) * 1e-3;

class ReplayRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    recorded_ =
        std::make_shared<RecordedSpace>(LoadRecordedSpace(TestDataPath("pnpoly_small.json")));
    task_ = recorded_->MakeTask();
  }
  Config At(int between, int block, int tile, int use) const {
    return recorded_->space.ConfigFromJson({{"between_method", between},
                                            {"block_size_x", block},
                                            {"tile_size", tile},
                                            {"use_method", use}});
  }
  const RecordedEntry& EntryAt(const Config& config) const {
    return recorded_->entries.at(recorded_->space.ToDenseIndex(config));
  }
  std::vector<MeasureInput> Inputs(const std::vector<Config>& configs) const {
    std::vector<MeasureInput> inputs;
    for (const Config& config : configs) inputs.push_back(MeasureInput{&task_, config});
    return inputs;
  }
  std::vector<MeasureResult> RunAll(ReplayRunner& runner, const std::vector<Config>& configs) {
    return runner.Run(Inputs(configs), std::vector<BuildResult>(configs.size()));
  }

  std::shared_ptr<RecordedSpace> recorded_;
  Task task_;
};

TEST_F(ReplayRunnerTest, OkConfigurationGivesItsRecordedMeanAndCost) {
  ReplayRunner runner(recorded_);
  EXPECT_TRUE(runner.IsSimulated());
  Config config = At(0, 32, 1, 1);
  const RecordedEntry& entry = EntryAt(config);
  auto results = RunAll(runner, {config});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].ok());
  EXPECT_EQ(results[0].time_s, entry.time_s);
  EXPECT_EQ(results[0].samples_s, entry.samples_s);
  EXPECT_EQ(results[0].compile_time_s, entry.compile_time_s);
  EXPECT_DOUBLE_EQ(results[0].cost_s, entry.compile_time_s + entry.benchmark_time_s);
  EXPECT_TRUE(results[0].error.empty());
  EXPECT_EQ(runner.measurements(), 1);
  EXPECT_EQ(runner.not_recorded(), 0);
}

TEST_F(ReplayRunnerTest, NoiseIsSeededAndAlwaysOneOfTheSamples) {
  Config config = At(0, 32, 1, 0);
  const RecordedEntry& entry = EntryAt(config);
  auto draw = [&](uint64_t seed) {
    ReplayRunner runner(recorded_, ReplayOptions{true, seed, 0.0});
    std::vector<double> times;
    for (const MeasureResult& result : RunAll(runner, std::vector<Config>(60, config))) {
      times.push_back(result.time_s);
    }
    return times;
  };
  std::vector<double> first = draw(7);
  EXPECT_EQ(draw(7), first);
  EXPECT_NE(draw(8), first);
  std::set<double> distinct;
  for (double time : first) {
    EXPECT_NE(std::find(entry.samples_s.begin(), entry.samples_s.end(), time),
              entry.samples_s.end());
    distinct.insert(time);
  }
  EXPECT_GT(distinct.size(), 1u);
}

TEST_F(ReplayRunnerTest, RecordedFailureKeepsItsStatusAndCost) {
  ReplayRunner runner(recorded_);
  Config config = At(0, 544, 20, 1);
  const RecordedEntry& entry = EntryAt(config);
  auto results = RunAll(runner, {config});
  EXPECT_EQ(results[0].status, MeasureStatus::kRuntimeDevice);
  EXPECT_EQ(results[0].error, "recorded as RuntimeFailedConfig");
  EXPECT_TRUE(std::isinf(results[0].time_s));
  EXPECT_DOUBLE_EQ(results[0].cost_s, entry.compile_time_s + entry.benchmark_time_s);
  EXPECT_GT(results[0].cost_s, entry.compile_time_s);
}

TEST_F(ReplayRunnerTest, MissingValidConfigurationIsUnknownAtTheMedianCompileTime) {
  ReplayRunner runner(recorded_);
  Config missing = At(3, 992, 4, 2);
  ASSERT_EQ(recorded_->entries.count(recorded_->space.ToDenseIndex(missing)), 0u);
  auto results = RunAll(runner, {missing});
  EXPECT_EQ(results[0].status, MeasureStatus::kUnknown);
  EXPECT_EQ(results[0].error, "not in the recorded space");
  EXPECT_NEAR(results[0].cost_s, kMedianCompileS, 1e-15);
  EXPECT_EQ(runner.measurements(), 1);
  EXPECT_EQ(runner.not_recorded(), 1);
}

TEST_F(ReplayRunnerTest, CostsOfABatchAddUp) {
  ReplayRunner runner(recorded_);
  std::vector<Config> configs;
  double expected = kMedianCompileS;  // one missing configuration
  for (const auto& [index, entry] : recorded_->entries) {
    configs.push_back(recorded_->space.FromDenseIndex(index));
    expected += entry.compile_time_s + entry.benchmark_time_s;
  }
  configs.push_back(At(1, 64, 6, 0));
  double total = 0.0;
  for (const MeasureResult& result : RunAll(runner, configs)) total += result.cost_s;
  EXPECT_NEAR(total, expected, 1e-12);
  EXPECT_EQ(runner.measurements(), 7);
}

TEST_F(ReplayRunnerTest, FailedBuildPassesThroughUncounted) {
  ReplayRunner runner(recorded_);
  std::vector<BuildResult> builds(2);
  builds[1] = BuildResult{MeasureStatus::kCompileHost, "", 2.5, "host compiler failed"};
  auto results = runner.Run(Inputs({At(0, 32, 1, 0), At(0, 32, 1, 1)}), builds);
  EXPECT_TRUE(results[0].ok());
  EXPECT_EQ(results[1].status, MeasureStatus::kCompileHost);
  EXPECT_EQ(results[1].error, "host compiler failed");
  EXPECT_EQ(results[1].cost_s, 2.5);
  EXPECT_EQ(runner.measurements(), 1);
}

TEST_F(ReplayRunnerTest, RestrictedConfigurationIsNotAMeasurement) {
  ReplayLoadOptions options;
  options.restrictions = {"tile_size > 1"};
  auto restricted = std::make_shared<RecordedSpace>(
      LoadRecordedSpace(TestDataPath("pnpoly_small.json"), options));
  ReplayRunner runner(restricted);
  auto results = RunAll(runner, {At(0, 32, 1, 0)});
  EXPECT_EQ(results[0].status, MeasureStatus::kInstantiation);
  EXPECT_EQ(results[0].cost_s, 0.0);
  EXPECT_EQ(runner.measurements(), 0);
}

TEST_F(ReplayRunnerTest, PaceSleepsPerMeasurement) {
  ReplayRunner runner(recorded_, ReplayOptions{false, 0, 15.0});
  auto start = std::chrono::steady_clock::now();
  RunAll(runner, {At(0, 32, 1, 0), At(0, 32, 1, 1), At(0, 32, 1, 2)});
  double elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(elapsed_ms, 45.0);
}

TEST_F(ReplayRunnerTest, ShippedFileReplaysItsBest) {
  auto recorded = std::make_shared<RecordedSpace>(
      LoadRecordedSpace(testing::RepoDataPath("recorded/convolution_milo/A100.json.gz")));
  auto best = recorded->Best();
  ASSERT_TRUE(best.has_value());
  for (const auto& [index, entry] : recorded->entries) {
    if (entry.status == MeasureStatus::kOk) {
      EXPECT_LE(best->second.time_s, entry.time_s);
    }
  }
  Task task = recorded->MakeTask();
  ReplayRunner runner(recorded);
  auto results = runner.Run({MeasureInput{&task, recorded->space.FromDenseIndex(best->first)}},
                            std::vector<BuildResult>(1));
  EXPECT_EQ(results[0].time_s, best->second.time_s);
}

}  // namespace
}  // namespace glimpse
