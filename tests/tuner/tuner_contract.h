// The contract of glimpse/tuner.h as a parameterised suite over registered strategy names:
// tests/tuner instantiates it for the built-in strategies, tests/hwaware for every strategy the
// libraries register (the model-based ones and Glimpse included).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "glimpse/tuner.h"
#include "tuner/synthetic.h"

namespace glimpse::testing {

class TunerContract : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Tuner> Make() {
    // A small GA population so that several generations are bred on the small spaces.
    Json options = GetParam() == "ga" ? Json{{"population", 10}} : Json::object();
    return MakeTuner(GetParam(), options);
  }
};

inline std::set<uint64_t> ValidSet(const ConfigSpace& space) {
  std::vector<uint64_t> valid = space.ValidIndices();
  return {valid.begin(), valid.end()};
}

TEST_P(TunerContract, ProposesEveryValidConfigExactlyOnceThenExhausts) {
  for (uint64_t fail_every : {0, 5}) {
    for (size_t batch : {1, 7, 64}) {
      Task task = MakeTask(testing::SmallSpace());
      SyntheticRunner runner(task.space, {2, 1, 1, 0}, fail_every);
      std::unique_ptr<Tuner> tuner = Make();
      EXPECT_EQ(tuner->Name(), GetParam());
      std::vector<Config> proposed = Drive(*tuner, task, runner, /*seed=*/3, batch);

      std::set<uint64_t> seen;
      for (const Config& config : proposed) {
        ASSERT_TRUE(task.space.IsValid(config)) << task.space.ConfigToString(config);
        ASSERT_TRUE(seen.insert(task.space.ToDenseIndex(config)).second)
            << "proposed twice: " << task.space.ConfigToString(config);
      }
      EXPECT_EQ(seen, ValidSet(task.space)) << "batch " << batch;
      // Exhausted: nothing more, also on a second ask.
      EXPECT_TRUE(tuner->Propose(batch).empty());
      EXPECT_TRUE(tuner->Propose(1).empty());
    }
  }
}

TEST_P(TunerContract, NeverProposesConfigsObservedBeforehand) {
  Task task = MakeTask(testing::GridSpace(3, 6));
  SyntheticRunner runner(task.space, {1, 2, 3});
  std::unique_ptr<Tuner> tuner = Make();
  tuner->Init(task, 11);
  // Resume: half of the valid configurations arrive as observations the tuner never proposed.
  std::vector<uint64_t> valid = task.space.ValidIndices();
  std::vector<Config> old_configs;
  std::vector<MeasureResult> old_results;
  for (size_t i = 0; i < valid.size(); i += 2) {
    old_configs.push_back(task.space.FromDenseIndex(valid[i]));
    old_results.push_back(runner.Measure(old_configs.back()));
  }
  tuner->Observe(old_configs, old_results);
  std::unordered_set<Config, ConfigHasher> old(old_configs.begin(), old_configs.end());

  std::unordered_set<Config, ConfigHasher> fresh;
  for (;;) {
    std::vector<Config> configs = tuner->Propose(9);
    if (configs.empty()) break;
    std::vector<MeasureResult> results;
    for (const Config& config : configs) {
      ASSERT_EQ(old.count(config), 0u) << task.space.ConfigToString(config);
      ASSERT_TRUE(fresh.insert(config).second);
      results.push_back(runner.Measure(config));
    }
    tuner->Observe(configs, results);
  }
  EXPECT_EQ(old.size() + fresh.size(), valid.size());
}

TEST_P(TunerContract, SameSeedSameProposals) {
  Task task = MakeTask(testing::GridSpace(4, 8));
  SyntheticRunner runner(task.space, {5, 2, 7, 1}, /*fail_every=*/9);
  std::unique_ptr<Tuner> first = Make();
  std::unique_ptr<Tuner> second = Make();
  std::vector<Config> a = Drive(*first, task, runner, 42, 16, 400);
  std::vector<Config> b = Drive(*second, task, runner, 42, 16, 400);
  EXPECT_EQ(a.size(), 400u);
  EXPECT_EQ(a, b);
  // Init restarts the run: the same tuner object gives the same proposals again.
  EXPECT_EQ(Drive(*first, task, runner, 42, 16, 400), a);
  if (GetParam() != "grid") {
    std::vector<Config> c = Drive(*second, task, runner, 43, 16, 400);
    EXPECT_NE(a, c) << "another seed should give another trajectory";
  }
}

TEST_P(TunerContract, BigSpaceProposesDistinctValidConfigs) {
  // 16^6 ≈ 1.7e7 raw points: beyond enumeration, so sampling is by rejection.
  Task task = MakeTask(testing::GridSpace(6, 16));
  SyntheticRunner runner(task.space, {3, 4, 5, 6, 7, 8}, /*fail_every=*/4);
  std::unique_ptr<Tuner> tuner = Make();
  std::vector<Config> proposed = Drive(*tuner, task, runner, 5, 32, 640);
  ASSERT_EQ(proposed.size(), 640u);
  std::unordered_set<Config, ConfigHasher> seen;
  for (const Config& config : proposed) {
    ASSERT_TRUE(task.space.IsValid(config));
    ASSERT_TRUE(seen.insert(config).second);
  }
}

}  // namespace glimpse::testing
