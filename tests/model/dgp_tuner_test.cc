// The DGP tuner (glimpse/dgp_tuner.h): the Tuner contract's essentials, transfer from a related
// device, search quality against random search, options and registration. (The registered
// strategy also runs the whole contract suite in tests/hwaware, and a replay on a recorded space
// in tests/evaluation/dgp_replay_test.cc.)
#include "glimpse/dgp_tuner.h"

#include <gtest/gtest.h>

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

// The other device of the transfer tests: 3× slower, its optimum one step away, its own noise.
TransferHistory OtherDeviceHistory(const ConfigSpace& space, size_t records) {
  BowlDevice other({6, 3, 5, 3, 1}, 3e-3, 17);
  TransferHistory history;
  for (const Config& config : model_testing::SampleConfigs(space, records, 21)) {
    history.emplace_back(config, other.Measure(config));
  }
  return history;
}

TEST(DgpTunerTest, ProposalsAreValidDistinctAndNeverRepeatObservations) {
  Task task = model_testing::MakeTask(BowlSpace());
  BowlDevice device(BowlDevice::DefaultTarget());
  auto tuner = MakeDgpTuner();
  TargetKnowledge knowledge;
  knowledge.history = OtherDeviceHistory(task.space, 300);
  tuner->Init(TuningContext{&task, 7, knowledge});
  std::set<uint64_t> seen;
  size_t measured = 0;
  for (size_t batch : {64u, 16u, 16u, 16u, 16u, 16u, 16u, 16u, 16u, 16u}) {
    std::vector<Config> configs = tuner->Propose(batch);
    ASSERT_EQ(configs.size(), batch);
    std::vector<MeasureResult> results;
    for (const Config& config : configs) {
      ASSERT_TRUE(task.space.IsValid(config));
      ASSERT_TRUE(seen.insert(task.space.ToDenseIndex(config)).second)
          << "proposed twice: " << task.space.ConfigToString(config);
      results.push_back(device.Measure(config));
    }
    tuner->Observe(configs, results);
    measured += configs.size();
  }
  EXPECT_EQ(measured, 208u);
}

TEST(DgpTunerTest, SameSeedSameProposals) {
  Task task = model_testing::MakeTask(BowlSpace());
  BowlDevice device(BowlDevice::DefaultTarget());
  auto a = MakeDgpTuner();
  auto b = MakeDgpTuner();
  EXPECT_EQ(Drive(*a, task, device, 5, 16, 112), Drive(*b, task, device, 5, 16, 112));
}

double BestRatio(Tuner& tuner, const Task& task, const BowlDevice& device, uint64_t seed,
                 size_t budget, double optimum, const TransferHistory& history = {}) {
  TargetKnowledge knowledge;
  knowledge.history = history;
  tuner.Init(TuningContext{&task, seed, knowledge});
  double best = INFINITY;
  size_t measured = 0;
  while (measured < budget) {
    std::vector<Config> configs = tuner.Propose(measured == 0 ? 64 : 16);
    if (configs.empty()) break;
    std::vector<MeasureResult> results;
    for (const Config& config : configs) {
      results.push_back(device.Measure(config));
      if (results.back().ok()) best = std::min(best, results.back().time_s);
    }
    tuner.Observe(configs, results);
    measured += configs.size();
  }
  return best / optimum;
}

TEST(DgpTunerTest, BeatsRandomSearchOnASmoothSpace) {
  Task task = model_testing::MakeTask(BowlSpace());
  BowlDevice device(BowlDevice::DefaultTarget());
  const double optimum = device.BestTime(task.space);
  std::vector<double> dgp, random;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    auto dgp_tuner = MakeDgpTuner();
    auto random_tuner = MakeRandomTuner();
    dgp.push_back(BestRatio(*dgp_tuner, task, device, seed, 160, optimum));
    random.push_back(BestRatio(*random_tuner, task, device, seed, 160, optimum));
  }
  std::cout << "best time / optimum after 160 measurements, median of 5 seeds: dgp " << Median(dgp)
            << ", random " << Median(random) << "\n";
  EXPECT_LT(Median(dgp) - 1.0, 0.25 * (Median(random) - 1.0));
  EXPECT_LT(Median(dgp), 1.05);
}

TEST(DgpTunerTest, TransferFromARelatedDeviceImprovesTheTuningSet) {
  Task task = model_testing::MakeTask(BowlSpace());
  BowlDevice device(BowlDevice::DefaultTarget());
  const TransferHistory history = OtherDeviceHistory(task.space, 600);
  // The first 64 proposals' (the tuning set's) mean time, given `known` records at Init.
  auto tuning_set_mean = [&](const TransferHistory& known, uint64_t seed) {
    auto tuner = MakeDgpTuner();
    TargetKnowledge knowledge;
    knowledge.history = known;
    tuner->Init(TuningContext{&task, seed, std::move(knowledge)});
    double sum = 0.0;
    size_t ok = 0;
    for (const Config& config : tuner->Propose(64)) {
      if (device.Fails(config)) continue;
      sum += device.TimeOf(config);
      ++ok;
    }
    return sum / ok;
  };
  std::vector<double> without, with;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    without.push_back(tuning_set_mean({}, seed));
    with.push_back(tuning_set_mean(history, seed));
  }
  std::cout << "mean time of the tuning set (ms), median of 3 seeds: without history "
            << 1e3 * Median(without) << ", with history " << 1e3 * Median(with) << "\n";
  EXPECT_LT(Median(with), 0.6 * Median(without));

  // Fewer records than min_history_records: no transfer, the tuning set is random as without.
  const TransferHistory scarce(history.begin(), history.begin() + 99);
  EXPECT_EQ(tuning_set_mean(scarce, 1), tuning_set_mean({}, 1));
}

TEST(DgpTunerTest, TransferReachesTheOptimumSoonerThanColdStart) {
  Task task = model_testing::MakeTask(BowlSpace());
  BowlDevice device(BowlDevice::DefaultTarget());
  const double optimum = device.BestTime(task.space);
  const TransferHistory history = OtherDeviceHistory(task.space, 600);
  std::vector<double> with, without;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    auto warm = MakeDgpTuner();
    auto cold = MakeDgpTuner();
    with.push_back(BestRatio(*warm, task, device, seed, 96, optimum, history));
    without.push_back(BestRatio(*cold, task, device, seed, 96, optimum));
  }
  std::cout << "best time / optimum after 96 measurements, median of 3 seeds: with history "
            << Median(with) << ", without " << Median(without) << "\n";
  EXPECT_LT(Median(with), Median(without));
}

TEST(DgpTunerTest, AllFailuresStayRandomAndKeepTheContract) {
  Task task = model_testing::MakeTask(BowlSpace());
  auto tuner = MakeDgpTuner();
  tuner->Init(task, 2);
  std::set<uint64_t> seen;
  for (int round = 0; round < 6; ++round) {
    std::vector<Config> configs = tuner->Propose(round == 0 ? 64 : 16);
    ASSERT_FALSE(configs.empty());
    std::vector<MeasureResult> results(configs.size());
    for (size_t i = 0; i < configs.size(); ++i) {
      ASSERT_TRUE(seen.insert(task.space.ToDenseIndex(configs[i])).second);
      results[i].status = MeasureStatus::kRuntimeDevice;
    }
    tuner->Observe(configs, results);
  }
}

TEST(DgpTunerTest, MisuseIsAnError) {
  Task task = model_testing::MakeTask(BowlSpace());
  auto tuner = MakeDgpTuner();
  EXPECT_THROW(tuner->Propose(1), Error);
  tuner->Init(task, 1);
  std::vector<Config> configs = tuner->Propose(2);
  EXPECT_THROW(tuner->Observe(configs, {}), Error);
  TransferHistory foreign(100, {Config{{0, 0}}, MeasureResult{}});
  EXPECT_THROW(
      tuner->Init(TuningContext{&task, 1, TargetKnowledge{nullptr, nullptr, foreign, nullptr}}),
      Error);
}

TEST(DgpTunerOptionsTest, FromJsonReadsKeysAndNamesBadOnes) {
  const DgpTunerOptions options = DgpTunerOptions::FromJson(
      {{"pool_size", 50}, {"prior_precision", "0.5"}, {"hidden_layers", 1}});
  EXPECT_EQ(options.pool_size, 50);
  EXPECT_DOUBLE_EQ(options.prior_precision, 0.5);
  EXPECT_EQ(options.hidden_layers, 1);
  EXPECT_EQ(options.tuning_set_size, DgpTunerOptions{}.tuning_set_size);
  try {
    DgpTunerOptions::FromJson({{"poolsize", 5}});
    FAIL() << "an unknown key was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("unknown option 'poolsize'"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("pool_size"), std::string::npos) << error.what();
  }
  EXPECT_THROW(DgpTunerOptions::FromJson({{"tuning_random_fraction", 1.5}}), Error);
  EXPECT_THROW(DgpTunerOptions::FromJson({{"feature_width", 0}}), Error);
}

TEST(DgpTunerRegistryTest, RegisteredAsLearningFromHistory) {
  RegisterModelTuners();
  RegisterModelTuners();  // idempotent
  auto tuner = MakeTuner("dgp", {{"pool_size", 100}});
  EXPECT_EQ(tuner->Name(), "dgp");
  EXPECT_TRUE(TraitsOfTuner("dgp").learns_from_history);
  EXPECT_FALSE(TraitsOfTuner("dgp").checks_validity);
  EXPECT_THROW(MakeTuner("dgp", {{"adapt_every", 0}}), Error);
}

}  // namespace
}  // namespace glimpse
