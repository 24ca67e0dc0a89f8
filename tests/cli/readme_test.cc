// Every runnable command the README shows is run here (the setup scripts are run by CI itself).
#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli_fixture.h"

namespace glimpse::testing {
namespace {

std::string ReadReadme() {
  std::ifstream in(std::string(GLIMPSE_SOURCE_DIR) + "/README.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Splits a shell command line into words, honouring double quotes and backslash-newline.
std::vector<std::string> ShellWords(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false, in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '\\' && i + 1 < line.size() && line[i + 1] == '\n') {
      ++i;
      continue;
    }
    if (c == '"') {
      quoted = !quoted;
      in_word = true;
      continue;
    }
    if (!quoted && (c == ' ' || c == '\n')) {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      continue;
    }
    word += c;
    in_word = true;
  }
  if (in_word) words.push_back(word);
  return words;
}

// The glimpse invocation inside a README command: the words after "glimpse" (or after
// "build/default/glimpse").
std::vector<std::string> GlimpseArgs(const std::string& command) {
  std::vector<std::string> words = ShellWords(command), args;
  bool found = false;
  for (const std::string& w : words) {
    if (found) args.push_back(w);
    if (!found && (w == "glimpse" || w == "build/default/glimpse")) found = true;
  }
  return args;
}

// The main job tunes every operator of a model for about ten minutes; here it runs as written
// except for its global budget, cut to one measurement per task so that the test stays fast (the
// full run's output is recorded in bench/results/cpu_resnet18.md).
TEST_F(CliTest, ReadmeMainJobRuns) {
  std::string readme = ReadReadme();
  std::smatch match;
  ASSERT_TRUE(std::regex_search(readme, match, std::regex("```sh\\n(scripts/build.sh && [^\\n]*)")))
      << "the README's first command should build and run the main job";
  std::vector<std::string> args = GlimpseArgs(match[1].str());
  ASSERT_FALSE(args.empty());
  EXPECT_EQ(args[0], "tune");
  auto budget = std::find(args.begin(), args.end(), "--global-budget");
  ASSERT_NE(budget, args.end()) << "the main job should give a global budget";
  ASSERT_NE(budget + 1, args.end());
  EXPECT_GE(std::stoi(*(budget + 1)), 100) << "the main job should tune, not just try";
  *(budget + 1) = "19";
  auto compile = std::find(args.begin(), args.end(), "--compile");
  ASSERT_NE(compile, args.end()) << "the main job should end with a runnable model";
  ASSERT_NE(compile + 1, args.end());
  *(compile + 1) = Db("resnet18-lib");  // not into the source tree
  args.insert(args.end(), {"--db", Db(), "--progress", "log", "--threads", "1"});
  CommandResult result = RunGlimpse(args, GLIMPSE_SOURCE_DIR);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("estimated latency of resnet18"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("dense:M=1,N=1000,K=512,bias=1"), std::string::npos) << result.out;
  // Without a terminal the progress display becomes plain log lines.
  EXPECT_EQ(result.err.find('\r'), std::string::npos);
  EXPECT_NE(result.err.find("task 19/19"), std::string::npos) << result.err;
  // The compiled model was built, checked against the reference and timed.
  EXPECT_NE(result.out.find("compiled resnet18 into"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("max |err| vs reference"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("too large"), std::string::npos) << result.out;
}

TEST_F(CliTest, ReadmeReplayQuickLookRuns) {
  std::string readme = ReadReadme();
  std::smatch match;
  ASSERT_TRUE(std::regex_search(
      readme, match, std::regex("\\n(build/default/glimpse tune --space data/recorded/[^\\n]*)")));
  std::vector<std::string> args = GlimpseArgs(match[1].str());
  args.insert(args.end(), {"--db", Db(), "--progress", "log"});
  CommandResult result = RunGlimpse(args, GLIMPSE_SOURCE_DIR);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("best time"), std::string::npos) << result.out;
}

TEST_F(CliTest, ReadmeGemmExampleRuns) {
  std::string shared = SharedDatasetsDir();
  if (shared.empty()) GTEST_SKIP() << "../shared/datasets is not beside this checkout";
  std::string readme = ReadReadme();
  std::smatch match;
  ASSERT_TRUE(std::regex_search(
      readme, match, std::regex("(glimpse tune --space gemm/(?:[^\\n]*\\\\\\n)*[^\\n]*)")));
  std::vector<std::string> args = GlimpseArgs(match[1].str());
  args.insert(args.end(), {"--db", Db(), "--progress", "quiet"});
  CommandResult result = RunGlimpse(args, shared);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("best config"), std::string::npos) << result.out;
}

}  // namespace
}  // namespace glimpse::testing
