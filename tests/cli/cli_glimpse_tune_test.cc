// The Glimpse tuner from the command line: `glimpse tune --tuner glimpse` on the bundled recorded
// space (kernel space named after the file's folder, components and fallbacks reported, options
// checked) and `glimpse bench run` with a study that names it.
#include <fstream>

#include "cli_fixture.h"
#include "glimpse/json.h"

namespace glimpse::testing {
namespace {

// Small enough for a second or two.
std::vector<std::string> FastGlimpse() {
  return {"--tuner",        "glimpse",      "--tuner-option", "surrogate_members=2",
          "--tuner-option", "sa_n_iter=30", "--tuner-option", "pool_size=32",
          "--budget",       "48",           "--batch",        "8",
          "--no-db"};
}

bool Lists(const Json& lines, const std::string& text) {
  for (const Json& line : lines) {
    if (line.get<std::string>().find(text) != std::string::npos) return true;
  }
  return false;
}

TEST_F(CliTest, GlimpseTunerReplaysWithTheFoldersKernelSpace) {
  std::vector<std::string> args = FastGlimpse();
  args.push_back("--json");
  CommandResult result = RunGlimpse(TuneArgs(args));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  Json summary = Json::parse(result.out);
  EXPECT_EQ(summary["measurements"], 48);
  ASSERT_TRUE(summary["components"].is_array()) << result.out;
  EXPECT_TRUE(Lists(summary["components"], "kernel: convolution_milo")) << result.out;
  EXPECT_TRUE(Lists(summary["components"], "device: NVIDIA A100-PCIE-40GB")) << result.out;
  EXPECT_TRUE(Lists(summary["components"], "prior: ")) << result.out;

  // An explicit kernel wins over the folder's name.
  args.insert(args.end(), {"--tuner-option", "kernel=some_other_kernel"});
  result = RunGlimpse(TuneArgs(args));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(Lists(Json::parse(result.out)["components"], "kernel: some_other_kernel"));
}

TEST_F(CliTest, GlimpseTunerSaysItsFallbacksOnStderr) {
  std::vector<std::string> args = FastGlimpse();
  args.insert(args.end(), {"--tuner-option", "device=Imaginary GPU 9000"});
  CommandResult result = RunGlimpse(TuneArgs(args));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("glimpse: device: none ('Imaginary GPU 9000'"), std::string::npos)
      << result.err;
  EXPECT_NE(result.out.find("components"), std::string::npos) << result.out;
  // quiet silences them.
  args.insert(args.end(), {"--tuner-option", "quiet=true"});
  result = RunGlimpse(TuneArgs(args));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err.find("glimpse: device"), std::string::npos) << result.err;
}

TEST_F(CliTest, GlimpseTunerIsListedAndItsOptionsChecked) {
  CommandResult list = RunGlimpse({"tune", "--list-tuners"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("glimpse"), std::string::npos) << list.out;

  CommandResult bad =
      RunGlimpse(TuneArgs({"--tuner", "glimpse", "--tuner-option", "pool_sise=3", "--no-db"}));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown option 'pool_sise'"), std::string::npos) << bad.err;

  CommandResult missing = RunGlimpse(TuneArgs(
      {"--tuner", "glimpse", "--tuner-option", "prior_model=/nonexistent/prior.json", "--no-db"}));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/prior.json"), std::string::npos) << missing.err;
}

TEST_F(CliTest, BenchRunsAStudyOfTheGlimpseTunerWithPlaceholders) {
  Json study = {{"root", RepoDataPath("recorded")},
                {"groups",
                 {{{"name", "convolution_milo"},
                   {"files", {"convolution_milo/A100.json.gz"}},
                   {"t1", "t1/convolution_milo.json"}}}},
                {"strategies",
                 {{{"name", "glimpse"},
                   {"options",
                    {{"kernel", "{group}"},
                     {"device", "{device}"},
                     {"surrogate_members", 2},
                     {"sa_n_iter", 30},
                     {"pool_size", 32},
                     {"budget", 32},
                     {"quiet", true}}}}}},
                {"seeds", 1},
                {"max_measurements", 32},
                {"batch_size", 8},
                {"first_batch", 8},
                {"checkpoints", {16, 32}}};
  const std::string path = dir_ + "/study.json";
  std::ofstream(path) << study.dump(2);
  CommandResult result =
      RunGlimpse({"bench", "run", "--config", path, "-o", dir_ + "/results.json", "--jobs", "1"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::ifstream in(dir_ + "/results.json");
  Json results = Json::parse(in);
  ASSERT_EQ(results["runs"].size(), 1u);
  EXPECT_EQ(results["runs"][0]["strategy"], "glimpse");
  EXPECT_EQ(results["runs"][0]["measurements"], 32);
}

}  // namespace
}  // namespace glimpse::testing
