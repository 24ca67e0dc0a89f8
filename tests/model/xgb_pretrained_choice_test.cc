// The XGBoost tuner's option pretrained=choose (glimpse/cost_model_choice.h): the first round is
// every member's own best in turn, and the member whose picks measured fastest is the base model
// from the first fit on — whichever position it holds among the members.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "glimpse/cost_model_choice.h"
#include "glimpse/error.h"
#include "glimpse/model_tuner.h"
#include "model_fixtures.h"
#include "test_errors.h"

namespace glimpse {
namespace {

using model_testing::BowlCostModel;
using model_testing::BowlDevice;

// Right about the measured device (its optimum, another noise) …
BowlDevice RightModelDevice() { return BowlDevice(BowlDevice::DefaultTarget(), 1e-3, 17); }
// … and wrong: its optimum is far from the device's, in every knob.
BowlDevice WrongModelDevice() { return BowlDevice({1, 8, 1, 8, 0}, 1e-3, 5); }

std::shared_ptr<const CostModelChoice> Choice(bool right_first) {
  std::shared_ptr<const CostModel> right = std::make_shared<BowlCostModel>(RightModelDevice());
  std::shared_ptr<const CostModel> wrong = std::make_shared<BowlCostModel>(WrongModelDevice());
  if (right_first)
    return std::make_shared<CostModelChoice>(
        std::vector<std::shared_ptr<const CostModel>>{right, wrong},
        std::vector<std::string>{"right", "wrong"});
  return std::make_shared<CostModelChoice>(
      std::vector<std::shared_ptr<const CostModel>>{wrong, right},
      std::vector<std::string>{"wrong", "right"});
}

// Rounds of 4 (plan_size 4) on the bowl device, 16 measurements; returns every proposal.
std::vector<Config> Tune(std::shared_ptr<const CostModel> pretrained, const std::string& mode,
                         uint64_t seed) {
  const Task task = model_testing::MakeTask(model_testing::BowlSpace());
  const BowlDevice device(BowlDevice::DefaultTarget());
  XgbTunerOptions options;
  options.plan_size = 4;
  options.pretrained = mode;
  auto tuner = MakeXgbTuner(options);
  TargetKnowledge knowledge;
  knowledge.pretrained_model = std::move(pretrained);
  tuner->Init(TuningContext{&task, seed, std::move(knowledge)});
  std::vector<Config> all;
  while (all.size() < 16) {
    std::vector<Config> configs = tuner->Propose(4);
    std::vector<MeasureResult> results;
    for (const Config& config : configs) results.push_back(device.Measure(config));
    tuner->Observe(configs, results);
    all.insert(all.end(), configs.begin(), configs.end());
  }
  return all;
}

TEST(XgbPretrainedChoiceTest, TheFirstRoundTakesEachMembersBestInTurn) {
  auto choice = Choice(/*right_first=*/false);
  const std::vector<Config> all = Tune(choice, "choose", 1);
  const BowlDevice wrong = WrongModelDevice(), right = RightModelDevice();
  // The wrong member's picks (slots 0 and 2) sit near its optimum, the right one's (1 and 3)
  // near the device's: each is far better under its own model than under the other.
  for (size_t slot : {0, 2}) EXPECT_LT(wrong.TimeOf(all[slot]), right.TimeOf(all[slot])) << slot;
  for (size_t slot : {1, 3}) EXPECT_LT(right.TimeOf(all[slot]), wrong.TimeOf(all[slot])) << slot;
}

TEST(XgbPretrainedChoiceTest, TheMemberWhosePicksRanFastestIsChosenWhereverItStands) {
  for (bool right_first : {true, false}) {
    auto choice = Choice(right_first);
    EXPECT_EQ(choice->outcome().chosen, -1) << "no choice before the first fit";
    Tune(choice, "choose", 2);
    const CostModelChoice::Outcome outcome = choice->outcome();
    EXPECT_EQ(outcome.chosen, right_first ? 0 : 1);
    ASSERT_EQ(outcome.best_time_s.size(), 2u);
    const double right_time = outcome.best_time_s[right_first ? 0 : 1];
    const double wrong_time = outcome.best_time_s[right_first ? 1 : 0];
    EXPECT_LT(right_time, wrong_time);
  }
}

TEST(XgbPretrainedChoiceTest, AfterTheChoiceOnlyTheChosenMemberIsAsked) {
  // From the first fit on the chosen member is the online model's base margin: the planner's
  // searches ask it, and the member that lost is never asked again.
  auto right = std::make_shared<BowlCostModel>(RightModelDevice());
  auto wrong = std::make_shared<BowlCostModel>(WrongModelDevice());
  auto choice =
      std::make_shared<CostModelChoice>(std::vector<std::shared_ptr<const CostModel>>{wrong, right},
                                        std::vector<std::string>{"wrong", "right"});
  const Task task = model_testing::MakeTask(model_testing::BowlSpace());
  const BowlDevice device(BowlDevice::DefaultTarget());
  XgbTunerOptions options;
  options.plan_size = 4;
  options.pretrained = "choose";
  auto tuner = MakeXgbTuner(options);
  TargetKnowledge knowledge;
  knowledge.pretrained_model = choice;
  tuner->Init(TuningContext{&task, 4, std::move(knowledge)});
  std::vector<Config> first = tuner->Propose(4);
  const size_t right_before = right->predictions(), wrong_before = wrong->predictions();
  EXPECT_GT(wrong_before, 0u);  // both planned the first round
  EXPECT_GT(right_before, 0u);
  for (int round = 0; round < 3; ++round) {
    std::vector<MeasureResult> results;
    for (const Config& config : first) results.push_back(device.Measure(config));
    tuner->Observe(first, results);
    first = tuner->Propose(4);
  }
  EXPECT_EQ(choice->outcome().chosen, 1);
  EXPECT_GT(right->predictions(), right_before) << "the later rounds' plans ask the chosen one";
  EXPECT_EQ(wrong->predictions(), wrong_before) << "and never the other";
}

TEST(XgbPretrainedChoiceTest, ChooseNeedsSeveralModelsAndAChoiceNeedsTwo) {
  auto one = std::make_shared<BowlCostModel>(RightModelDevice());
  EXPECT_NE(glimpse::testing::ErrorMessageOf([&] {
              Tune(one, "choose", 1);
            }).find("option pretrained=choose chooses among several pretrained models"),
            std::string::npos);
  EXPECT_NE(glimpse::testing::ErrorMessageOf([&] {
              CostModelChoice({one}, {"one"});
            }).find("needs at least two members (got 1)"),
            std::string::npos);
  EXPECT_NE(glimpse::testing::ErrorMessageOf([&] {
              CostModelChoice({one, one}, {"one"});
            }).find("a choice of 2 cost models got 1 names"),
            std::string::npos);
}

TEST(XgbPretrainedChoiceTest, AsAPlainModelAChoicePredictsTheMembersMean) {
  auto choice = Choice(true);
  const Task task = model_testing::MakeTask(model_testing::BowlSpace());
  const std::vector<Config> configs = model_testing::SampleConfigs(task.space, 5, 3);
  const std::vector<double> mean = choice->Predict(configs);
  const std::vector<double> a = choice->members()[0]->Predict(configs);
  const std::vector<double> b = choice->members()[1]->Predict(configs);
  for (size_t i = 0; i < configs.size(); ++i) EXPECT_DOUBLE_EQ(mean[i], (a[i] + b[i]) / 2);
  EXPECT_THROW(Choice(true)->RecordOutcome({5, {1.0, 2.0}}), Error);
}

}  // namespace
}  // namespace glimpse
