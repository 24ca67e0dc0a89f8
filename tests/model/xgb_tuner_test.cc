// The XGBoost tuner: the Tuner contract, search quality against random search, transfer learning,
// options and registration.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "glimpse/error.h"
#include "glimpse/model_tuner.h"
#include "model_fixtures.h"

namespace glimpse {
namespace {

using model_testing::BowlDevice;
using model_testing::BowlSpace;
using model_testing::Drive;
using model_testing::Median;

TEST(XgbTunerTest, ProposalsAreValidDistinctAndNeverRepeatObservations) {
  Task task = model_testing::MakeTask(BowlSpace());
  BowlDevice device(BowlDevice::DefaultTarget());
  auto tuner = MakeXgbTuner();
  tuner->Init(task, 3);
  // Records of an earlier run, observed before anything was proposed.
  std::vector<Config> resumed = model_testing::SampleConfigs(task.space, 40, 99);
  std::sort(resumed.begin(), resumed.end());
  resumed.erase(std::unique(resumed.begin(), resumed.end()), resumed.end());
  std::vector<MeasureResult> resumed_results;
  for (const Config& config : resumed) resumed_results.push_back(device.Measure(config));
  tuner->Observe(resumed, resumed_results);

  std::set<Config> seen(resumed.begin(), resumed.end());
  size_t proposed = 0;
  for (int round = 0; round < 8; ++round) {  // 8 × 48 = 384 proposals: several refits
    std::vector<Config> configs = tuner->Propose(48);
    ASSERT_EQ(configs.size(), 48u);
    std::vector<MeasureResult> results;
    for (const Config& config : configs) {
      EXPECT_TRUE(task.space.IsValid(config)) << task.space.ConfigToString(config);
      EXPECT_TRUE(seen.insert(config).second)
          << "re-proposed " << task.space.ConfigToString(config);
      results.push_back(device.Measure(config));
    }
    proposed += configs.size();
    tuner->Observe(configs, results);
  }
  EXPECT_EQ(proposed, 384u);
}

TEST(XgbTunerTest, SameSeedSameProposals) {
  Task task = model_testing::MakeTask(BowlSpace());
  BowlDevice device(BowlDevice::DefaultTarget());
  auto first = MakeXgbTuner(), second = MakeXgbTuner(), other = MakeXgbTuner();
  std::vector<Config> a = Drive(*first, task, device, 5, 32, 200);
  std::vector<Config> b = Drive(*second, task, device, 5, 32, 200);
  std::vector<Config> c = Drive(*other, task, device, 6, 32, 200);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(XgbTunerTest, ExhaustsASmallSpaceExactlyOnce) {
  ConfigSpace space;
  space.AddKnob(Knob::Ordered("a", model_testing::Range(6)));
  space.AddKnob(Knob::Ordered("b", model_testing::Range(6)));
  space.AddKnob(Knob::Ordered("c", model_testing::Range(4)));
  space.AddKnob(Knob::Ordered("d", model_testing::Range(2)));
  space.AddKnob(Knob::Ordered("layout", model_testing::Range(3)));
  space.AddRestriction("a + b <= 7");
  Task task = model_testing::MakeTask(space, "small");
  const uint64_t valid = task.space.CountValid();
  BowlDevice device({2, 2, 1, 1, 1});
  XgbTunerOptions options;
  options.plan_size = 16;
  auto tuner = MakeXgbTuner(options);
  std::vector<Config> all = Drive(*tuner, task, device, 1, 10, 100000);
  std::set<Config> distinct(all.begin(), all.end());
  EXPECT_EQ(all.size(), valid);
  EXPECT_EQ(distinct.size(), valid);
  EXPECT_TRUE(tuner->Propose(5).empty());
}

// Best time found within `budget` measurements, relative to the optimum (1 = found it).
double BestRatio(Tuner& tuner, const Task& task, const BowlDevice& device, uint64_t seed,
                 size_t budget, double optimum) {
  double best = INFINITY;
  for (const Config& config : Drive(tuner, task, device, seed, 16, budget)) {
    if (!device.Fails(config)) best = std::min(best, device.TimeOf(config));
  }
  return best / optimum;
}

TEST(XgbTunerTest, BeatsRandomSearchOnASmoothSpace) {
  Task task = model_testing::MakeTask(BowlSpace());
  BowlDevice device(BowlDevice::DefaultTarget());
  const double optimum = device.BestTime(task.space);
  std::vector<double> xgb, random;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    auto xgb_tuner = MakeXgbTuner();
    auto random_tuner = MakeRandomTuner();
    xgb.push_back(BestRatio(*xgb_tuner, task, device, seed, 200, optimum));
    random.push_back(BestRatio(*random_tuner, task, device, seed, 200, optimum));
  }
  ASSERT_EQ(task.space.CountValid(), 14790u);
  const double xgb_median = Median(xgb), random_median = Median(random);
  for (size_t i = 0; i < xgb.size(); ++i) {
    std::cout << "seed " << i + 1 << ": xgb " << xgb[i] << ", random " << random[i] << "\n";
  }
  std::cout << "best time / optimum after 200 measurements, median of 5 seeds: xgb " << xgb_median
            << ", random " << random_median << "\n";
  // The regret (ratio − 1) of the model-based search is a small fraction of random search's.
  EXPECT_LT(xgb_median - 1.0, 0.25 * (random_median - 1.0));
  EXPECT_LT(xgb_median, 1.05);
}

// AutoTVM's plan of 64 fits no model within a run of 64: every pick is random. xgb-rounds sizes
// the plan to the budget it is told (16 of 64), so the last picks of the run come from a model
// fitted on the first 48 and are much faster than random ones; told no budget, it is AutoTVM's
// tuner exactly.
TEST(XgbTunerTest, BudgetRoundsFitTheModelWithinASmallBudget) {
  RegisterModelTuners();
  Task task = model_testing::MakeTask(BowlSpace());
  BowlDevice device(BowlDevice::DefaultTarget());
  std::vector<double> rounds_last, autotvm_last;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    auto rounds = MakeTuner("xgb-rounds");
    auto autotvm = MakeTuner("xgb");
    std::vector<Config> a = Drive(*rounds, task, device, seed, 16, 64, /*tell_budget=*/true);
    std::vector<Config> b = Drive(*autotvm, task, device, seed, 16, 64, /*tell_budget=*/true);
    ASSERT_EQ(a.size(), 64u);
    ASSERT_EQ(b.size(), 64u);
    // The first 16 are the same random picks; after the first fit they part.
    EXPECT_TRUE(std::equal(a.begin(), a.begin() + 16, b.begin()));
    EXPECT_FALSE(std::equal(a.begin() + 16, a.end(), b.begin() + 16));
    rounds_last.push_back(model_testing::MeanOkTime(device, {a.end() - 16, a.end()}));
    autotvm_last.push_back(model_testing::MeanOkTime(device, {b.end() - 16, b.end()}));

    auto untold = MakeTuner("xgb-rounds");
    auto autotvm_again = MakeTuner("xgb");
    EXPECT_EQ(Drive(*untold, task, device, seed, 16, 64),
              Drive(*autotvm_again, task, device, seed, 16, 64));
  }
  std::cout << "mean time of measurements 49-64, median of 5 seeds: xgb-rounds "
            << Median(rounds_last) << ", xgb " << Median(autotvm_last) << "\n";
  EXPECT_LT(Median(rounds_last), 0.7 * Median(autotvm_last));
}

TEST(XgbTunerTest, TransferFromARelatedDeviceImprovesTheFirstBatch) {
  Task task = model_testing::MakeTask(BowlSpace());
  BowlDevice device(BowlDevice::DefaultTarget());
  // The other device: 3× slower, its optimum one step away, its own noise.
  BowlDevice other({6, 3, 5, 3, 1}, 3e-3, 17);
  std::vector<std::pair<Config, MeasureResult>> history;
  for (const Config& config : model_testing::SampleConfigs(task.space, 600, 21)) {
    history.emplace_back(config, other.Measure(config));
  }
  // The first 64 proposals' mean time, given `known` records of other devices at Init.
  auto first_batch_mean = [&](const TransferHistory& known, uint64_t seed) {
    auto tuner = MakeXgbTuner();
    TargetKnowledge knowledge;
    knowledge.history = known;
    tuner->Init(TuningContext{&task, seed, std::move(knowledge)});
    return model_testing::MeanOkTime(device, tuner->Propose(64));
  };
  std::vector<double> without, with;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    without.push_back(first_batch_mean({}, seed));
    with.push_back(first_batch_mean(history, seed));
  }
  std::cout << "mean time of the first 64 proposals (ms), median of 3 seeds: without history "
            << 1e3 * Median(without) << ", with history " << 1e3 * Median(with) << "\n";
  EXPECT_LT(Median(with), 0.6 * Median(without));

  // Fewer records than min_seed_records: no transfer, the first batch is random as without.
  const TransferHistory scarce(history.begin(), history.begin() + 100);
  EXPECT_EQ(first_batch_mean(scarce, 1), first_batch_mean({}, 1));
}

TEST(XgbTunerTest, DiversityFilterKeepsTheContract) {
  Task task = model_testing::MakeTask(BowlSpace());
  BowlDevice device(BowlDevice::DefaultTarget());
  XgbTunerOptions options;
  options.diversity_filter_ratio = 2.0;
  auto tuner = MakeXgbTuner(options);
  std::vector<Config> all = Drive(*tuner, task, device, 2, 32, 256);
  std::set<Config> distinct(all.begin(), all.end());
  EXPECT_EQ(all.size(), 256u);
  EXPECT_EQ(distinct.size(), all.size());
  for (const Config& config : all) EXPECT_TRUE(task.space.IsValid(config));
}

TEST(XgbTunerTest, AllFailuresNeverFitAndStayRandom) {
  Task task = model_testing::MakeTask(BowlSpace());
  auto tuner = MakeXgbTuner();
  tuner->Init(task, 1);
  std::set<Config> seen;
  for (int round = 0; round < 3; ++round) {
    std::vector<Config> configs = tuner->Propose(64);
    ASSERT_EQ(configs.size(), 64u);
    std::vector<MeasureResult> failed(configs.size());  // status unknown, time +inf
    for (const Config& config : configs) EXPECT_TRUE(seen.insert(config).second);
    tuner->Observe(configs, failed);
  }
}

TEST(XgbTunerTest, MisuseIsAnError) {
  Task task = model_testing::MakeTask(BowlSpace());
  auto tuner = MakeXgbTuner();
  EXPECT_THROW(tuner->Propose(1), Error);
  tuner->Init(task, 1);
  EXPECT_THROW(tuner->Observe({Config{{0, 0, 0, 0, 0}}}, {}), Error);
  EXPECT_THROW(tuner->Observe({Config{{0, 0, 0}}}, {MeasureResult{}}), Error);
  TargetKnowledge bad;
  bad.history.emplace_back(Config{{99, 0, 0, 0, 0}}, MeasureResult{});
  auto with_bad_history = MakeXgbTuner();
  EXPECT_THROW(with_bad_history->Init(TuningContext{&task, 1, bad}), Error);
}

TEST(XgbTunerOptionsTest, FromJsonReadsKeysAndNamesBadOnes) {
  XgbTunerOptions options = XgbTunerOptions::FromJson(
      {{"plan_size", "32"}, {"loss_type", "reg"}, {"diversity_filter_ratio", 2}});
  EXPECT_EQ(options.plan_size, 32);
  EXPECT_EQ(options.loss_type, "reg");
  ASSERT_TRUE(options.diversity_filter_ratio.has_value());
  EXPECT_EQ(*options.diversity_filter_ratio, 2.0);
  EXPECT_FALSE(XgbTunerOptions::FromJson(Json::object()).diversity_filter_ratio.has_value());

  auto message_of = [](const Json& json) {
    try {
      XgbTunerOptions::FromJson(json);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message_of({{"plansize", 3}}).find("unknown option 'plansize'"), std::string::npos);
  EXPECT_NE(message_of({{"plansize", 3}}).find("plan_size"), std::string::npos);
  EXPECT_NE(message_of({{"loss_type", "hinge"}}).find("accepted: rank, reg"), std::string::npos);
  EXPECT_NE(message_of({{"optimizer", "ga"}}).find("accepted: sa"), std::string::npos);
  EXPECT_NE(message_of({{"diversity_filter_ratio", 0.5}}).find("≥ 1"), std::string::npos);
  EXPECT_NE(message_of({{"plan_size", 0}}).find("plan_size"), std::string::npos);
}

TEST(XgbTunerOptionsTest, PlanSizeForBudgetIsAQuarterWithinBounds) {
  XgbTunerOptions autotvm;
  EXPECT_EQ(autotvm.PlanSizeForBudget(64), 64);  // budget_rounds 0: AutoTVM's plan as given
  XgbTunerOptions rounds = XgbTunerOptions::FromJson({{"budget_rounds", 4}});
  EXPECT_EQ(rounds.budget_rounds, 4);
  EXPECT_EQ(rounds.PlanSizeForBudget(64), 16);
  EXPECT_EQ(rounds.PlanSizeForBudget(65), 17);    // rounded up: four plans cover the budget
  EXPECT_EQ(rounds.PlanSizeForBudget(20), 8);     // never shorter than 8
  EXPECT_EQ(rounds.PlanSizeForBudget(1000), 64);  // never longer than plan_size
  EXPECT_EQ(rounds.PlanSizeForBudget(0), 64);     // no measurement budget: plan_size
  rounds.plan_size = 4;
  EXPECT_EQ(rounds.PlanSizeForBudget(64), 4);  // a plan_size below 8 still bounds it
  try {
    XgbTunerOptions::FromJson({{"budget_rounds", -1}});
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("budget_rounds' must be ≥ 0"), std::string::npos);
  }
}

TEST(XgbTunerRegistryTest, RegistersXgbAndXgbRegOnce) {
  RegisterModelTuners();
  RegisterModelTuners();  // idempotent
  std::vector<std::string> known = KnownTuners();
  EXPECT_NE(std::find(known.begin(), known.end(), "xgb"), known.end());
  EXPECT_NE(std::find(known.begin(), known.end(), "xgb-reg"), known.end());
  EXPECT_EQ(MakeTuner("xgb")->Name(), "xgb");
  EXPECT_EQ(MakeTuner("xgb-reg")->Name(), "xgb-reg");
  EXPECT_EQ(MakeTuner("xgb-rounds")->Name(), "xgb-rounds");
  EXPECT_EQ(MakeTuner("xgb", {{"budget_rounds", 4}})->Name(), "xgb-rounds");
  EXPECT_EQ(MakeTuner("xgb-rounds", {{"budget_rounds", 0}})->Name(), "xgb");
  EXPECT_EQ(MakeTuner("xgb", {{"loss_type", "reg"}})->Name(), "xgb-reg");
  try {
    MakeTuner("xgb-reg", {{"plan", 1}});
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("tuner 'xgb-reg'"), std::string::npos);
  }
}

}  // namespace
}  // namespace glimpse
