// `glimpse bench run` and `glimpse bench summarize` on the quick study of the bundled spaces.
#include <filesystem>
#include <fstream>

#include "cli_fixture.h"
#include "glimpse/json.h"

namespace glimpse::testing {
namespace {

glimpse::Json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return Json::parse(in);
}

TEST_F(CliTest, BenchRunThenSummarizeMergesStudies) {
  std::string config = std::string(GLIMPSE_SOURCE_DIR) + "/bench/configs/quick.json";
  std::string random_out = dir_ + "/random.json", grid_out = dir_ + "/grid.json";
  const std::vector<std::pair<std::string, std::string>> studies = {{"random", random_out},
                                                                    {"grid", grid_out}};
  for (const auto& [strategy, out] : studies) {
    CommandResult result =
        RunGlimpse({"bench", "run", "--config", config, "-o", out, "--seeds", "2", "--budget", "30",
                    "--only-strategy", strategy, "--jobs", "1"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find(strategy), std::string::npos) << result.out;
    Json results = ReadJson(out);
    EXPECT_EQ(results["runs"].size(), 4u);  // 2 spaces × 2 seeds
    for (const Json& run : results["runs"]) {
      EXPECT_EQ(run["strategy"], strategy);
      EXPECT_EQ(run["measurements"], 30);
    }
  }
  std::string merged = dir_ + "/merged.json";
  CommandResult summary = RunGlimpse({"bench", "summarize", random_out, grid_out, "-o", merged});
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_NE(summary.out.find("random"), std::string::npos);
  EXPECT_NE(summary.out.find("grid"), std::string::npos);
  Json results = ReadJson(merged);
  EXPECT_EQ(results["runs"].size(), 8u);
  EXPECT_EQ(results["summaries"].size(), 4u);  // 2 spaces × 2 strategies
}

TEST_F(CliTest, BenchRunRefusesAnUnknownGroup) {
  std::string config = std::string(GLIMPSE_SOURCE_DIR) + "/bench/configs/quick.json";
  CommandResult result = RunGlimpse(
      {"bench", "run", "--config", config, "-o", dir_ + "/x.json", "--only-group", "nope"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("nope"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/x.json"));
}

}  // namespace
}  // namespace glimpse::testing
