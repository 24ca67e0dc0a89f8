// Rieber et al.'s biased simulated annealing: the bias touches exactly the known configurations,
// and the planner ranks with it.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "glimpse/model_search.h"
#include "model/rieber_init.h"
#include "model_fixtures.h"

namespace glimpse {
namespace {

using model::ValidityBias;

// Every configuration scores the same: only a bias can order them.
class FlatModel : public CostModel {
 public:
  std::string FeatureVersion() const override { return "flat"; }
  void Fit(const std::vector<Config>&, const std::vector<double>&) override {}
  std::vector<double> Predict(const std::vector<Config>& configs) const override {
    return std::vector<double>(configs.size(), 0.25);
  }
  bool IsFitted() const override { return true; }
  void SetBaseModel(std::shared_ptr<const CostModel>) override {}
  bool HasBaseModel() const override { return false; }
  void Save(const std::string&) const override {}
  void Load(const std::string&) override {}
};

TEST(RieberBiasTest, AppliesToExactlyTheKnownConfigurations) {
  ValidityBias bias;
  const Config valid{{1, 2}}, invalid{{3, 4}}, unknown{{5, 6}}, remeasured{{7, 8}};
  bias.Mark(valid, true);
  bias.Mark(invalid, false);
  bias.Mark(remeasured, false);
  bias.Mark(remeasured, true);  // a measurement after the check: the latest word wins
  EXPECT_EQ(bias.size(), 3u);
  std::vector<Config> configs = {unknown, valid, invalid, remeasured, unknown};
  std::vector<double> scores = {-2.5, -2.5, 6.0, 3.0, 7.0};
  bias.Apply(configs, scores);
  EXPECT_DOUBLE_EQ(scores[0], -2.5);  // unknown: untouched
  EXPECT_DOUBLE_EQ(scores[1], -1.5);  // known valid: +1
  EXPECT_DOUBLE_EQ(scores[2], -1e6);  // known invalid: −10^6, whatever the model said
  EXPECT_DOUBLE_EQ(scores[3], 4.0);
  EXPECT_DOUBLE_EQ(scores[4], 7.0);
  bias.Clear();
  std::vector<double> again = {1.0, 1.0, 1.0, 1.0, 1.0};
  bias.Apply(configs, again);
  EXPECT_EQ(again, std::vector<double>(5, 1.0));
}

TEST(RieberBiasTest, PlannerRanksKnownValidFirstAndKnownInvalidOut) {
  // 36 configurations: 64 walkers meet every one of them.
  ConfigSpace space;
  space.AddKnob(Knob::Ordered("a", model_testing::Range(6)));
  space.AddKnob(Knob::Ordered("b", model_testing::Range(6)));
  auto bias = std::make_shared<ValidityBias>();
  std::set<Config> known_valid, known_invalid, unknown;
  for (uint64_t index = 0; index < space.RawSize(); ++index) {
    const Config config = space.FromDenseIndex(index);
    if (index % 7 == 0) {
      bias->Mark(config, true);
      known_valid.insert(config);  // 6 of them
    } else if (index % 3 != 0) {
      bias->Mark(config, false);
      known_invalid.insert(config);
    } else {
      unknown.insert(config);
    }
  }
  model::SaOptions options;
  options.parallel_size = 64;
  options.n_iter = 100;
  model::SaOptimizer optimizer(space, options, 9);
  optimizer.set_score_bias([bias](const std::vector<Config>& configs, std::vector<double>& s) {
    bias->Apply(configs, s);
  });
  FlatModel model;
  const size_t wanted = known_valid.size() + unknown.size();
  std::vector<Config> best = optimizer.FindMaximums(model, wanted, {});
  ASSERT_EQ(best.size(), wanted);
  // The model ties everything: +1 puts every known valid configuration first, −10^6 keeps every
  // known invalid one out of a plan that has room for all the others.
  EXPECT_EQ(std::set<Config>(best.begin(), best.begin() + known_valid.size()), known_valid);
  EXPECT_EQ(std::set<Config>(best.begin() + known_valid.size(), best.end()), unknown);

  // Without the bias the same planner mixes them.
  model::SaOptimizer plain(space, options, 9);
  std::vector<Config> unbiased = plain.FindMaximums(model, wanted, {});
  size_t invalid_in_plan = 0;
  for (const Config& config : unbiased) invalid_in_plan += known_invalid.count(config);
  EXPECT_GT(invalid_in_plan, 0u);
}

}  // namespace
}  // namespace glimpse
