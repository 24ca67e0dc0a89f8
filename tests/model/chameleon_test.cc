// The Chameleon tuner: the Tuner contract, adaptive plan sizes, search quality against random
// search, options and registration.
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

// A lighter planner than the default (fewer walkers and iterations) keeps the suite fast; the
// adaptive sampling itself runs with its defaults.
ChameleonOptions FastOptions() {
  ChameleonOptions options;
  options.plan_size = 32;
  options.sa_parallel_size = 64;
  options.sa_n_iter = 200;
  return options;
}

TEST(ChameleonTunerTest, ProposalsAreValidDistinctAndNeverRepeatObservations) {
  Task task = model_testing::MakeTask(BowlSpace());
  BowlDevice device(BowlDevice::DefaultTarget());
  auto tuner = MakeChameleonTuner(FastOptions());
  EXPECT_EQ(tuner->Name(), "chameleon");
  tuner->Init(task, 3);
  // Records of an earlier run, observed before anything was proposed.
  std::vector<Config> resumed = model_testing::SampleConfigs(task.space, 40, 99);
  std::sort(resumed.begin(), resumed.end());
  resumed.erase(std::unique(resumed.begin(), resumed.end()), resumed.end());
  std::vector<MeasureResult> resumed_results;
  for (const Config& config : resumed) resumed_results.push_back(device.Measure(config));
  tuner->Observe(resumed, resumed_results);

  std::set<Config> seen(resumed.begin(), resumed.end());
  // Batches smaller and larger than a plan: a call ends inside a plan or spans several.
  for (size_t batch : {5u, 40u, 7u, 64u, 3u, 16u}) {
    std::vector<Config> configs = tuner->Propose(batch);
    ASSERT_EQ(configs.size(), batch);
    std::vector<MeasureResult> results;
    for (const Config& config : configs) {
      EXPECT_TRUE(task.space.IsValid(config)) << task.space.ConfigToString(config);
      EXPECT_TRUE(seen.insert(config).second)
          << "re-proposed " << task.space.ConfigToString(config);
      results.push_back(device.Measure(config));
    }
    tuner->Observe(configs, results);
  }
  // Configurations observed between a plan and its hand-out (another process's records) are
  // not proposed either.
  std::vector<Config> late = model_testing::SampleConfigs(task.space, 200, 5);
  std::sort(late.begin(), late.end());
  late.erase(std::unique(late.begin(), late.end()), late.end());
  std::vector<Config> fresh_late;
  for (const Config& config : late) {
    if (seen.insert(config).second) fresh_late.push_back(config);
  }
  std::vector<MeasureResult> late_results;
  for (const Config& config : fresh_late) late_results.push_back(device.Measure(config));
  tuner->Observe(fresh_late, late_results);
  for (const Config& config : tuner->Propose(48)) {
    EXPECT_TRUE(task.space.IsValid(config));
    EXPECT_TRUE(seen.insert(config).second) << "re-proposed " << task.space.ConfigToString(config);
  }
}

TEST(ChameleonTunerTest, SameSeedSameProposals) {
  Task task = model_testing::MakeTask(BowlSpace());
  BowlDevice device(BowlDevice::DefaultTarget());
  auto first = MakeChameleonTuner(FastOptions()), second = MakeChameleonTuner(FastOptions()),
       other = MakeChameleonTuner(FastOptions());
  std::vector<Config> a = Drive(*first, task, device, 5, 16, 160);
  std::vector<Config> b = Drive(*second, task, device, 5, 16, 160);
  std::vector<Config> c = Drive(*other, task, device, 6, 16, 160);
  ASSERT_EQ(a.size(), 160u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(ChameleonTunerTest, PlanSizeFollowsTheClustering) {
  Task task = model_testing::MakeTask(BowlSpace());
  BowlDevice device(BowlDevice::DefaultTarget());
  ChameleonOptions options = FastOptions();
  std::vector<ChameleonPlanInfo> plans;
  options.on_plan = [&](const ChameleonPlanInfo& info) { plans.push_back(info); };
  auto tuner = MakeChameleonTuner(options);
  std::vector<Config> all = Drive(*tuner, task, device, 4, 8, 240);
  ASSERT_EQ(all.size(), 240u);
  ASSERT_GE(plans.size(), 5u);
  std::set<size_t> ks;
  for (const ChameleonPlanInfo& info : plans) {
    ASSERT_GT(info.candidates, 0u);
    // k lies in [k_min, min(k_max, candidates)] and is the knee of the curve that was tried.
    ASSERT_FALSE(info.ks.empty());
    EXPECT_EQ(info.ks.front(), std::min<size_t>(8, info.candidates));
    EXPECT_EQ(info.ks.back(), std::min<size_t>(32, info.candidates));
    EXPECT_NE(std::find(info.ks.begin(), info.ks.end(), info.k), info.ks.end());
    EXPECT_LE(info.planned, info.k);
    EXPECT_GE(info.planned, 1u);
    EXPECT_LT(info.k, info.candidates);  // adaptive sampling measures fewer than it is offered
    ks.insert(info.k);
  }
  std::cout << "k per plan:";
  for (const ChameleonPlanInfo& info : plans) std::cout << " " << info.k;
  std::cout << "\n";
  EXPECT_GE(ks.size(), 2u) << "k never changed over " << plans.size() << " plans";
  // The first plan comes with the first fit; later ones refit whenever results came in.
  EXPECT_TRUE(plans.front().refitted);
  EXPECT_GE(std::count_if(plans.begin(), plans.end(),
                          [](const ChameleonPlanInfo& info) { return info.refitted; }),
            4);
}

// Best time found within `budget` measurements, relative to the optimum (1 = found it), and the
// number of measurements until the best was within 5% of the optimum (`budget` when never).
struct RunQuality {
  double best_ratio;
  size_t to_within_5_percent;
};

RunQuality Quality(Tuner& tuner, const Task& task, const BowlDevice& device, uint64_t seed,
                   size_t budget, double optimum) {
  RunQuality quality{INFINITY, budget};
  std::vector<Config> all = Drive(tuner, task, device, seed, 16, budget);
  for (size_t i = 0; i < all.size(); ++i) {
    if (device.Fails(all[i])) continue;
    quality.best_ratio = std::min(quality.best_ratio, device.TimeOf(all[i]) / optimum);
    if (quality.best_ratio <= 1.05 && quality.to_within_5_percent == budget) {
      quality.to_within_5_percent = i + 1;
    }
  }
  return quality;
}

TEST(ChameleonTunerTest, BeatsRandomSearchOnASmoothSpace) {
  Task task = model_testing::MakeTask(BowlSpace());
  BowlDevice device(BowlDevice::DefaultTarget());
  const double optimum = device.BestTime(task.space);
  // Random search gets five times the budget for its count to within 5% (a run that never gets
  // there counts at its budget, which flatters it; on this space random search rarely does).
  const size_t budget = 200, random_budget = 1000;
  std::vector<double> chameleon_ratio, random_ratio, chameleon_steps, random_steps;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    auto chameleon = MakeChameleonTuner(FastOptions());
    auto random = MakeRandomTuner();
    RunQuality c = Quality(*chameleon, task, device, seed, budget, optimum);
    RunQuality r = Quality(*random, task, device, seed, budget, optimum);
    r.to_within_5_percent =
        Quality(*random, task, device, seed, random_budget, optimum).to_within_5_percent;
    std::cout << "seed " << seed << ": chameleon " << c.best_ratio << " (within 5% after "
              << c.to_within_5_percent << "), random " << r.best_ratio << " (within 5% after "
              << r.to_within_5_percent << ")\n";
    chameleon_ratio.push_back(c.best_ratio);
    random_ratio.push_back(r.best_ratio);
    chameleon_steps.push_back(static_cast<double>(c.to_within_5_percent));
    random_steps.push_back(static_cast<double>(r.to_within_5_percent));
  }
  std::cout << "median of 5 seeds, " << budget << " measurements: best time / optimum chameleon "
            << Median(chameleon_ratio) << ", random " << Median(random_ratio)
            << "; measurements to within 5% (random: of " << random_budget << "): chameleon "
            << Median(chameleon_steps) << ", random " << Median(random_steps) << "\n";
  // After 200 measurements the regret (ratio − 1) of the adaptive search is a small fraction of
  // random search's, and it gets within 5% of the optimum in a fraction of random search's
  // measurements.
  EXPECT_LT(Median(chameleon_ratio) - 1.0, 0.25 * (Median(random_ratio) - 1.0));
  EXPECT_LT(Median(chameleon_ratio), 1.05);
  EXPECT_LT(Median(chameleon_steps), 0.4 * Median(random_steps));
}

TEST(ChameleonTunerTest, ExhaustsASmallSpaceExactlyOnce) {
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
  ChameleonOptions options = FastOptions();
  options.plan_size = 16;
  auto tuner = MakeChameleonTuner(options);
  std::vector<Config> all = Drive(*tuner, task, device, 1, 10, 100000);
  std::set<Config> distinct(all.begin(), all.end());
  EXPECT_EQ(all.size(), valid);
  EXPECT_EQ(distinct.size(), valid);
  EXPECT_TRUE(tuner->Propose(5).empty());
}

TEST(ChameleonTunerTest, AllFailuresNeverFitAndStayRandom) {
  Task task = model_testing::MakeTask(BowlSpace());
  ChameleonOptions options = FastOptions();
  size_t plans = 0;
  options.on_plan = [&](const ChameleonPlanInfo&) { ++plans; };
  auto tuner = MakeChameleonTuner(options);
  tuner->Init(task, 1);
  std::set<Config> seen;
  for (int round = 0; round < 3; ++round) {
    std::vector<Config> configs = tuner->Propose(40);
    ASSERT_EQ(configs.size(), 40u);
    std::vector<MeasureResult> failed(configs.size());  // status unknown, time +inf
    for (const Config& config : configs) EXPECT_TRUE(seen.insert(config).second);
    tuner->Observe(configs, failed);
  }
  EXPECT_EQ(plans, 0u);
}

TEST(ChameleonTunerTest, MisuseIsAnError) {
  Task task = model_testing::MakeTask(BowlSpace());
  auto tuner = MakeChameleonTuner();
  EXPECT_THROW(tuner->Propose(1), Error);
  tuner->Init(task, 1);
  EXPECT_THROW(tuner->Observe({Config{{0, 0, 0, 0, 0}}}, {}), Error);
  EXPECT_THROW(tuner->Observe({Config{{0, 0, 0}}}, {MeasureResult{}}), Error);
  ChameleonOptions bad;
  bad.k_min = 0;
  EXPECT_THROW(MakeChameleonTuner(bad), Error);
}

TEST(ChameleonOptionsTest, FromJsonReadsKeysAndNamesBadOnes) {
  ChameleonOptions options = ChameleonOptions::FromJson({{"plan_size", "32"},
                                                         {"k_min", 4},
                                                         {"k_max", 24},
                                                         {"candidate_ratio", 3},
                                                         {"loss_type", "reg"}});
  EXPECT_EQ(options.plan_size, 32);
  EXPECT_EQ(options.k_min, 4);
  EXPECT_EQ(options.k_max, 24);
  EXPECT_EQ(options.candidate_ratio, 3.0);
  EXPECT_EQ(options.loss_type, "reg");

  auto message_of = [](const Json& json) {
    try {
      ChameleonOptions::FromJson(json);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  const std::string unknown = message_of({{"kmax", 3}});
  EXPECT_NE(unknown.find("tuner 'chameleon'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("unknown option 'kmax'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("k_max"), std::string::npos) << unknown;
  EXPECT_NE(message_of({{"k_min", 9}, {"k_max", 4}}).find("k_max"), std::string::npos);
  EXPECT_NE(message_of({{"candidate_ratio", 0.5}}).find("candidate_ratio"), std::string::npos);
  EXPECT_NE(message_of({{"loss_type", "hinge"}}).find("accepted: rank, reg"), std::string::npos);
  EXPECT_NE(message_of({{"plan_size", 0}}).find("tuner 'chameleon'"), std::string::npos);
}

TEST(ChameleonRegistryTest, RegistersChameleonOnce) {
  RegisterModelTuners();
  RegisterModelTuners();  // idempotent
  std::vector<std::string> known = KnownTuners();
  EXPECT_NE(std::find(known.begin(), known.end(), "chameleon"), known.end());
  EXPECT_EQ(MakeTuner("chameleon")->Name(), "chameleon");
  EXPECT_EQ(MakeTuner("chameleon", {{"k_min", 4}})->Name(), "chameleon");
  EXPECT_THROW(MakeTuner("chameleon", {{"plan", 1}}), Error);
}

}  // namespace
}  // namespace glimpse
