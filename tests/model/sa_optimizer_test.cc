// The simulated-annealing planner over a cost model.
#include <gtest/gtest.h>

#include <set>

#include "glimpse/model_search.h"
#include "model_fixtures.h"

namespace glimpse {
namespace {

using model_testing::BowlSpace;
using model_testing::SampleConfigs;

// A known model: minus the squared distance to a point, so its optimum is known exactly.
class DistanceModel : public CostModel {
 public:
  explicit DistanceModel(std::vector<double> target) : target_(std::move(target)) {}
  std::string FeatureVersion() const override { return "distance"; }
  void Fit(const std::vector<Config>&, const std::vector<double>&) override {}
  std::vector<double> Predict(const std::vector<Config>& configs) const override {
    ++calls_;
    std::vector<double> scores;
    for (const Config& config : configs) scores.push_back(Score(config));
    return scores;
  }
  double Score(const Config& config) const {
    double sum = 0.0;
    for (size_t k = 0; k < target_.size(); ++k) {
      const double d = config.indices[k] - target_[k];
      sum += d * d;
    }
    return -sum;
  }
  bool IsFitted() const override { return true; }
  void SetBaseModel(std::shared_ptr<const CostModel>) override {}
  bool HasBaseModel() const override { return false; }
  void Save(const std::string&) const override {}
  void Load(const std::string&) override {}
  mutable int calls_ = 0;

 private:
  std::vector<double> target_;
};

TEST(SaOptimizerTest, ReturnsValidDistinctUnvisitedConfigurationsBestFirst) {
  ConfigSpace space = BowlSpace();
  DistanceModel model({8, 5, 6, 5, 2});  // a + b = 13 and c + d = 11: on both restrictions' edge
  model::ConfigSet exclusive;
  for (const Config& config : SampleConfigs(space, 2000, 1)) exclusive.insert(config);
  model::SaOptimizer optimizer(space, {}, 7);
  std::vector<Config> best = optimizer.FindMaximums(model, 64, exclusive);

  ASSERT_EQ(best.size(), 64u);
  std::set<Config> distinct(best.begin(), best.end());
  EXPECT_EQ(distinct.size(), best.size());
  for (const Config& config : best) {
    EXPECT_TRUE(space.IsValid(config)) << space.ConfigToString(config);
    EXPECT_EQ(exclusive.count(config), 0u) << space.ConfigToString(config);
  }
  for (size_t i = 1; i < best.size(); ++i) {
    EXPECT_GE(model.Score(best[i - 1]), model.Score(best[i]));
  }
  EXPECT_GT(optimizer.last_iterations(), 0);
  EXPECT_LE(optimizer.last_iterations(), 500);
}

TEST(SaOptimizerTest, TopKBeatsRandomConfigurationsOnTheModel) {
  ConfigSpace space = BowlSpace();
  DistanceModel model({6, 2, 4, 3, 0});
  model::SaOptimizer optimizer(space, {}, 11);
  std::vector<Config> best = optimizer.FindMaximums(model, 64, {});
  ASSERT_EQ(best.size(), 64u);
  // The model's optimum is a valid point; the annealing finds it.
  EXPECT_EQ(model.Score(best[0]), 0.0);

  std::vector<Config> random = SampleConfigs(space, 64, 12);
  double best_mean = 0.0, random_mean = 0.0, random_max = -1e300;
  for (const Config& config : best) best_mean += model.Score(config) / 64;
  for (const Config& config : random) {
    random_mean += model.Score(config) / 64;
    random_max = std::max(random_max, model.Score(config));
  }
  EXPECT_GT(best_mean, random_max);  // every one of the top 64 on average beats the best random
  EXPECT_GT(best_mean, random_mean + 5.0);
}

TEST(SaOptimizerTest, MutateStaysValidAndMoves) {
  ConfigSpace space = BowlSpace();
  model::SaOptimizer optimizer(space, {}, 3);
  for (const Config& start : SampleConfigs(space, 200, 4)) {
    Config next = optimizer.Mutate(start);
    EXPECT_TRUE(space.IsValid(next));
    EXPECT_NE(next, start);
  }
}

TEST(SaOptimizerTest, EarlyStopEndsAFlatSearch) {
  ConfigSpace space = BowlSpace();
  DistanceModel model({4, 4, 4, 4, 1});
  model::SaOptions options;
  options.early_stop = 5;
  model::SaOptimizer optimizer(space, options, 5);
  // One slot: once the optimum is in the heap nothing can replace it, so the search stops
  // early_stop iterations after the last improvement instead of running all 500.
  std::vector<Config> best = optimizer.FindMaximums(model, 1, {});
  ASSERT_EQ(best.size(), 1u);
  EXPECT_LT(optimizer.last_iterations(), 500);
  EXPECT_EQ(model.calls_, optimizer.last_iterations() + 1);
}

TEST(SaOptimizerTest, SmallSpaceYieldsAtMostItsUnvisitedConfigurations) {
  ConfigSpace space;
  space.AddKnob(Knob::Ordered("x", model_testing::Range(4)));
  space.AddKnob(Knob::Ordered("y", model_testing::Range(3)));
  space.AddRestriction("x + y <= 3");  // 3 + 3 + 2 + 1 = 9 valid (y ≤ 2)
  ASSERT_EQ(space.CountValid(), 9u);
  DistanceModel model({1, 1});
  model::ConfigSet exclusive = {Config{{1, 1}}, Config{{0, 0}}};
  model::SaOptimizer optimizer(space, {}, 9);
  std::vector<Config> best = optimizer.FindMaximums(model, 64, exclusive);
  EXPECT_EQ(best.size(), 7u);  // every valid configuration outside `exclusive`
  for (const Config& config : best) EXPECT_EQ(exclusive.count(config), 0u);
}

}  // namespace
}  // namespace glimpse
