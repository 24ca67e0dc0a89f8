// "{device}" and "{group}" in a strategy's options: replaced per run by the space's file name and
// its group's name, before the tuner is made (and checked before any run).
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <sstream>

#include "glimpse/error.h"
#include "glimpse/evaluation.h"
#include "glimpse/tuner.h"
#include "test_paths.h"

namespace glimpse {
namespace {

TEST(StudyPlaceholdersTest, ReplacesEveryOccurrenceInStringsAtAnyDepth) {
  Json options = {{"prior_model", "models/prior-without-{device}.json"},
                  {"kernel", "{group}"},
                  {"tag", "{group}/{device}/{device}"},
                  {"nested", {{"list", {"{device}", 3, true}}}},
                  {"pool_size", 64},
                  {"{device}", "keys stay"}};
  Json out = SubstituteRunPlaceholders(options, "RTX_2080_Ti", "convolution_milo");
  EXPECT_EQ(out["prior_model"], "models/prior-without-RTX_2080_Ti.json");
  EXPECT_EQ(out["kernel"], "convolution_milo");
  EXPECT_EQ(out["tag"], "convolution_milo/RTX_2080_Ti/RTX_2080_Ti");
  EXPECT_EQ(out["nested"]["list"], Json({"RTX_2080_Ti", 3, true}));
  EXPECT_EQ(out["pool_size"], 64);
  EXPECT_EQ(out["{device}"], "keys stay");
  // Nothing to replace: unchanged.
  EXPECT_EQ(SubstituteRunPlaceholders(Json{{"a", "{dev}"}}, "A100", "g"), Json({{"a", "{dev}"}}));
}

// The options every made "probe" tuner was given.
std::mutex probe_mutex;
std::vector<Json> probe_options;

void RegisterProbe() {
  static std::once_flag once;
  std::call_once(once, [] {
    RegisterTuner("placeholder-probe", "random search that records its options",
                  [](const Json& options) {
                    std::lock_guard<std::mutex> lock(probe_mutex);
                    probe_options.push_back(options);
                    return MakeRandomTuner();
                  });
  });
}

TEST(StudyPlaceholdersTest, EachRunsTunerGetsItsSpacesDeviceAndGroup) {
  RegisterProbe();
  StudyConfig study =
      LoadStudyConfig(std::string(GLIMPSE_SOURCE_DIR) + "/bench/configs/quick.json");
  study.seeds = 1;
  study.max_measurements = 8;
  study.checkpoints = {8};
  study.strategies = {{"probe", "placeholder-probe", Json{{"tag", "{group}:{device}"}}, ""}};
  {
    std::lock_guard<std::mutex> lock(probe_mutex);
    probe_options.clear();
  }
  std::ostringstream progress;
  StudyRunOptions options;
  options.output_path = testing::MakeTempDir("glimpse-placeholders") + "/results.json";
  options.jobs = 1;
  options.progress = &progress;
  StudyResults results = RunStudy(study, options);
  ASSERT_EQ(results.runs.size(), results.spaces.size());

  std::set<std::string> expected, seen;
  for (const SpaceInfo& space : results.spaces) {
    expected.insert(space.group + ":" + space.id.substr(space.id.find('/') + 1));
  }
  std::lock_guard<std::mutex> lock(probe_mutex);
  // One tuner per strategy when the study is checked (the first space's values), one per run.
  ASSERT_EQ(probe_options.size(), 1 + results.runs.size());
  for (const Json& made : probe_options) seen.insert(made.at("tag").get<std::string>());
  EXPECT_EQ(seen, expected);
  EXPECT_TRUE(expected.count("pnpoly:RTX_3090")) << ::testing::PrintToString(expected);
}

}  // namespace
}  // namespace glimpse
