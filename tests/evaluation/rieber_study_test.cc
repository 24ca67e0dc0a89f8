// Studies with validity-driven initialisation: the strategy key, the checker the runner gives the
// tuner, and the presampling cost in the run's simulated time (never in its measurements).
#include <gtest/gtest.h>

#include <sstream>

#include "glimpse/error.h"
#include "glimpse/evaluation.h"
#include "test_paths.h"

namespace glimpse {
namespace {

std::string QuickStudyPath() {
  return std::string(GLIMPSE_SOURCE_DIR) + "/bench/configs/quick.json";
}

Json QuickStudyWith(const Json& strategy) {
  Json json = Json::parse(R"({"root": "../../data/recorded",
      "groups": [{"name": "pnpoly", "files": ["pnpoly/RTX_3090.json.gz"], "t1": "t1/pnpoly.json"}],
      "seeds": 1, "max_measurements": 60})");
  json["strategies"] = Json::array({strategy});
  return json;
}

TEST(RieberStudyTest, StrategyKeyIsParsedAndChecked) {
  StudyConfig study = ParseStudyConfig(
      QuickStudyWith({{"name", "xgb-rieber"}, {"tuner", "xgb"}, {"validity_init", true}}),
      QuickStudyPath());
  EXPECT_TRUE(study.strategies[0].validity_init);
  study = ParseStudyConfig(
      QuickStudyWith({{"name", "r"}, {"tuner", "xgb"}, {"options", {{"validity_init", true}}}}),
      QuickStudyPath());
  EXPECT_TRUE(study.strategies[0].validity_init);
  EXPECT_FALSE(ParseStudyConfig(QuickStudyWith({{"name", "xgb"}}), QuickStudyPath())
                   .strategies[0]
                   .validity_init);
  EXPECT_THROW(
      ParseStudyConfig(QuickStudyWith({{"name", "ga"}, {"validity_init", true}}), QuickStudyPath()),
      Error);
  EXPECT_THROW(ParseStudyConfig(QuickStudyWith({{"name", "xgb"}, {"validity_init", "yes"}}),
                                QuickStudyPath()),
               Error);
}

TEST(RieberStudyTest, PresamplingIsChargedInSimulatedTimeNotInMeasurements) {
  StudyConfig study = ParseStudyConfig(QuickStudyWith({{"name", "xgb-rieber"},
                                                       {"tuner", "xgb"},
                                                       {"validity_init", true},
                                                       {"options",
                                                        {{"plan_size", 20},
                                                         {"n_samples", 200},
                                                         {"e0_size", 20},
                                                         {"e0_valid", 10},
                                                         {"sa_n_iter", 60},
                                                         {"sa_parallel_size", 32}}}}),
                                       QuickStudyPath());
  study.strategies.push_back(
      {"xgb", "xgb", {{"plan_size", 20}, {"sa_n_iter", 60}, {"sa_parallel_size", 32}}, "", false});
  const std::string dir = testing::MakeTempDir("glimpse-rieber");
  StudyRunOptions options;
  options.output_path = dir + "/r.json";
  options.jobs = 2;
  std::ostringstream progress;
  options.progress = &progress;
  StudyResults results = RunStudy(study, options);
  ASSERT_EQ(results.runs.size(), 2u);
  const RunRecord& rieber =
      results.runs[0].strategy == "xgb-rieber" ? results.runs[0] : results.runs[1];
  const RunRecord& plain = results.runs[0].strategy == "xgb" ? results.runs[0] : results.runs[1];
  EXPECT_EQ(rieber.measurements, 60);  // the 200 checks are not measurements
  EXPECT_GT(rieber.presampling_s, 0.0);
  EXPECT_EQ(plain.presampling_s, 0.0);
  ASSERT_FALSE(rieber.best_curve.empty());
  EXPECT_GT(rieber.best_curve.front().simulated_s, rieber.presampling_s);
  EXPECT_GE(rieber.simulated_s, rieber.best_curve.back().simulated_s);
  // The field survives the results file.
  StudyResults loaded = LoadResults(options.output_path);
  for (const RunRecord& run : loaded.runs) {
    if (run.strategy == "xgb-rieber") {
      EXPECT_DOUBLE_EQ(run.presampling_s, rieber.presampling_s);
    }
  }
}

}  // namespace
}  // namespace glimpse
