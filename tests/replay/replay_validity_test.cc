// ReplayValidityChecker: a recorded space's status as a cheap validity check, charged the
// recorded compile time only.
#include <gtest/gtest.h>

#include "glimpse/replay.h"
#include "glimpse/validity.h"
#include "replay_test_util.h"

namespace glimpse {
namespace {

using testing::TestDataPath;

// As in replay_runner_test.cc: the median of the six entries' compile times.
constexpr double kMedianCompileS = 0.5 * (110.34165602177382 + 111.88561655580997) * 1e-3;

class ReplayValidityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    recorded_ =
        std::make_shared<RecordedSpace>(LoadRecordedSpace(TestDataPath("pnpoly_small.json")));
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
  std::shared_ptr<RecordedSpace> recorded_;
};

TEST_F(ReplayValidityTest, RecordedStatusAtTheCompileTimeOnly) {
  ReplayValidityChecker checker(recorded_);
  const Config ok = At(0, 32, 1, 1), failed = At(0, 544, 20, 1), missing = At(3, 992, 4, 2);
  ASSERT_EQ(recorded_->entries.count(recorded_->space.ToDenseIndex(missing)), 0u);
  std::vector<ValidityResult> results = checker.Check({ok, failed, missing});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0].valid);
  EXPECT_EQ(results[0].status, MeasureStatus::kOk);
  EXPECT_DOUBLE_EQ(results[0].cost_s, EntryAt(ok).compile_time_s);
  EXPECT_GT(EntryAt(ok).benchmark_time_s, 0.0);  // …which the check does not pay
  EXPECT_FALSE(results[1].valid);
  EXPECT_EQ(results[1].status, MeasureStatus::kRuntimeDevice);
  EXPECT_DOUBLE_EQ(results[1].cost_s, EntryAt(failed).compile_time_s);
  EXPECT_FALSE(results[2].valid);
  EXPECT_EQ(results[2].status, MeasureStatus::kUnknown);
  EXPECT_NEAR(results[2].cost_s, kMedianCompileS, 1e-15);
  EXPECT_EQ(checker.checks(), 3);
  EXPECT_NEAR(checker.charged_s(),
              EntryAt(ok).compile_time_s + EntryAt(failed).compile_time_s + kMedianCompileS, 1e-15);
}

TEST_F(ReplayValidityTest, RestrictedConfigurationIsInvalidAndFree) {
  ReplayLoadOptions options;
  options.restrictions = {"tile_size > 1"};
  auto restricted = std::make_shared<RecordedSpace>(
      LoadRecordedSpace(TestDataPath("pnpoly_small.json"), options));
  ReplayValidityChecker checker(restricted);
  std::vector<ValidityResult> results = checker.Check({At(0, 32, 1, 0)});
  EXPECT_FALSE(results[0].valid);
  EXPECT_EQ(results[0].status, MeasureStatus::kInstantiation);
  EXPECT_EQ(results[0].cost_s, 0.0);
  EXPECT_EQ(checker.checks(), 0);
  EXPECT_THROW(checker.Check({Config{{0}}}), Error);  // not a point of the space
}

}  // namespace
}  // namespace glimpse
