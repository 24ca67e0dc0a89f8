// The contract of glimpse/tuner.h (tuner/tuner_contract.h), checked for every built-in strategy.
#include "tuner/tuner_contract.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "glimpse/tuner.h"
#include "tuner/synthetic.h"

namespace glimpse {
namespace {

using testing::Drive;
using testing::MakeTask;
using testing::SyntheticRunner;

using testing::TunerContract;

INSTANTIATE_TEST_SUITE_P(BuiltIn, TunerContract, ::testing::Values("random", "grid", "ga", "sa"),
                         [](const auto& info) { return info.param; });

TEST(GridTuner, WalksValidConfigsInDenseIndexOrder) {
  Task task = MakeTask(testing::SmallSpace());
  SyntheticRunner runner(task.space, {0, 0, 0, 0});
  std::unique_ptr<Tuner> tuner = MakeGridTuner();
  std::vector<Config> proposed = Drive(*tuner, task, runner, 0, 5);
  std::vector<uint64_t> indices;
  for (const Config& config : proposed) indices.push_back(task.space.ToDenseIndex(config));
  EXPECT_EQ(indices, task.space.ValidIndices());
}

TEST(RandomTuner, DrawsLookUniform) {
  // The first proposal over many seeds hits every valid configuration of a small space roughly
  // equally often (200 seeds per valid configuration).
  ConfigSpace space;
  space.AddKnob(Knob::Ordered("a", {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{4}}));
  space.AddKnob(Knob::Ordered("b", {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{4}}));
  space.AddRestriction("a + b <= 4 or a == b + 3");
  Task task = MakeTask(space);
  std::vector<uint64_t> valid = task.space.ValidIndices();
  std::map<uint64_t, int> counts;
  std::unique_ptr<Tuner> tuner = MakeRandomTuner();
  for (uint64_t seed = 0; seed < 200 * valid.size(); ++seed) {
    tuner->Init(task, seed);
    ++counts[task.space.ToDenseIndex(tuner->Propose(1).at(0))];
  }
  EXPECT_EQ(counts.size(), valid.size());
  for (const auto& [index, count] : counts) {
    EXPECT_GT(count, 130) << index;
    EXPECT_LT(count, 270) << index;
  }
}

}  // namespace
}  // namespace glimpse
