// The XGBoost tuner started from a pretrained cost model (TargetKnowledge::pretrained_model, the
// learned performance model in glimpse): the first plan is the pretrained model's, and with the
// default option it stays on as the base of the tuner's own models.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>

#include "glimpse/error.h"
#include "glimpse/model_tuner.h"
#include "model_fixtures.h"

namespace glimpse {
namespace {

using model_testing::BowlCostModel;
using model_testing::BowlDevice;
using model_testing::BowlSpace;
using model_testing::MeanOkTime;
using model_testing::Median;

std::vector<Config> FirstProposals(const Task& task, std::shared_ptr<const CostModel> pretrained,
                                   uint64_t seed, size_t n, XgbTunerOptions options = {}) {
  auto tuner = MakeXgbTuner(options);
  TargetKnowledge knowledge;
  knowledge.pretrained_model = std::move(pretrained);
  tuner->Init(TuningContext{&task, seed, std::move(knowledge)});
  return tuner->Propose(n);
}

TEST(XgbPretrainedTest, TheFirstBatchIsThePretrainedModelsBest) {
  const Task task = model_testing::MakeTask(BowlSpace());
  const BowlDevice device(BowlDevice::DefaultTarget());
  // Right about the optimum's neighbourhood, one step off in two knobs, another noise.
  auto pretrained = std::make_shared<BowlCostModel>(BowlDevice({6, 3, 5, 3, 1}, 3e-3, 17));
  std::vector<double> without, with;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    without.push_back(MeanOkTime(device, FirstProposals(task, nullptr, seed, 16)));
    with.push_back(MeanOkTime(device, FirstProposals(task, pretrained, seed, 16)));
  }
  std::cout << "mean time of the first 16 proposals (ms), median of 3 seeds: cold "
            << 1e3 * Median(without) << ", from the pretrained model " << 1e3 * Median(with)
            << "\n";
  EXPECT_GT(pretrained->predictions(), 1000u) << "the plan searches on the model";
  EXPECT_LT(Median(with), 0.5 * Median(without));
  // The pretrained model's own optimum is among the first proposals: the planner found it.
  const std::vector<Config> first = FirstProposals(task, pretrained, 1, 16);
  const Config its_best{{6, 3, 5, 3, 1}};
  EXPECT_NE(std::find(first.begin(), first.end(), its_best), first.end());
}

TEST(XgbPretrainedTest, AsBaseItShapesLaterPlansAndFirstPlanOnlyDoesNot) {
  const Task task = model_testing::MakeTask(BowlSpace());
  const BowlDevice device(BowlDevice::DefaultTarget());
  auto pretrained = std::make_shared<BowlCostModel>(BowlDevice({6, 3, 5, 3, 1}, 3e-3, 17));
  auto run = [&](const std::string& mode) {
    XgbTunerOptions options;
    options.pretrained = mode;
    auto tuner = MakeXgbTuner(options);
    TargetKnowledge knowledge;
    knowledge.pretrained_model = pretrained;
    tuner->Init(TuningContext{&task, 5, std::move(knowledge)});
    std::vector<Config> all;
    while (all.size() < 128) {
      std::vector<Config> configs = tuner->Propose(16);
      std::vector<MeasureResult> results;
      for (const Config& config : configs) results.push_back(device.Measure(config));
      tuner->Observe(configs, results);
      all.insert(all.end(), configs.begin(), configs.end());
    }
    return all;
  };
  const std::vector<Config> base = run("base"), first_plan = run("first-plan");
  // The first plan (less its random tail) is the pretrained model's either way …
  ASSERT_EQ(base.size(), first_plan.size());
  EXPECT_TRUE(std::equal(base.begin(), base.begin() + 61, first_plan.begin()));
  // … and after the first fit the base margin changes what is planned.
  EXPECT_FALSE(std::equal(base.begin() + 64, base.end(), first_plan.begin() + 64));
}

TEST(XgbPretrainedTest, OptionPretrainedNamesItsValues) {
  try {
    XgbTunerOptions::FromJson(Json{{"pretrained", "always"}});
    FAIL() << "expected an Error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("'pretrained' is 'always'; accepted: base, "
                        "first-plan, choose"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(XgbTunerOptions::FromJson(Json{{"pretrained", "first-plan"}}).pretrained, "first-plan");
  RegisterModelTuners();
  EXPECT_TRUE(TraitsOfTuner("xgb").takes_pretrained_model);
  EXPECT_FALSE(TraitsOfTuner("random").takes_pretrained_model);
}

}  // namespace
}  // namespace glimpse
