// Bad input gives one clear line naming what is wrong, a non-zero exit, and no database.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli_fixture.h"

namespace glimpse::testing {
namespace {

namespace fs = std::filesystem;

class CliErrorTest : public CliTest {
 protected:
  // Runs a command that must fail: exit 2, one "glimpse: error:" line containing `expected`, and
  // no database file left behind.
  void ExpectError(std::vector<std::string> args, const std::string& expected) {
    args.insert(args.end(), {"--db", Db()});
    CommandResult result = RunGlimpse(args);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_EQ(result.err.rfind("glimpse: error: ", 0), 0u) << result.err;
    EXPECT_NE(result.err.find(expected), std::string::npos)
        << "expected '" << expected << "' in: " << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
    EXPECT_FALSE(fs::exists(Db())) << "a failed command left a database behind";
  }
};

TEST_F(CliErrorTest, MissingSpaceFileIsNamed) {
  ExpectError({"tune", "--space", dir_ + "/nope.json.gz"}, dir_ + "/nope.json.gz");
}

TEST_F(CliErrorTest, CorruptSpaceFileIsNamed) {
  std::string path = dir_ + "/corrupt.json";
  std::ofstream(path) << "this is not json";
  ExpectError({"tune", "--space", path}, path);
}

TEST_F(CliErrorTest, UnknownTunerListsKnownOnes) {
  ExpectError(TuneArgs({"--tuner", "xgbb"}), "unknown tuner 'xgbb'; known:");
  ExpectError(TuneArgs({"--tuner", "xgbb"}), "random");
}

TEST_F(CliErrorTest, MalformedRestrictionNamesColumn) {
  ExpectError(TuneArgs({"--restrict", "block_size_x < < 4"}), "column");
}

TEST_F(CliErrorTest, RestrictionWithUnknownKnobListsKnobs) {
  ExpectError(TuneArgs({"--restrict", "block_size_q > 4"}), "block_size_q");
  ExpectError(TuneArgs({"--restrict", "block_size_q > 4"}), "block_size_x");
}

TEST_F(CliErrorTest, NonPositiveBudgetIsRefused) {
  ExpectError(TuneArgs({"--budget", "0"}), "budget");
  ExpectError(TuneArgs({"--budget", "-5"}), "budget");
  ExpectError(TuneArgs({"--time-budget", "-1"}), "time-budget");
}

TEST_F(CliErrorTest, BadTunerOptionIsNamed) {
  ExpectError(TuneArgs({"--tuner", "ga", "--tuner-option", "populaton=5"}), "populaton");
  ExpectError(TuneArgs({"--tuner-option", "novalue"}), "key=value");
}

TEST_F(CliErrorTest, BadProgressModeIsNamed) {
  ExpectError(TuneArgs({"--progress", "loud"}), "--progress");
}

TEST_F(CliErrorTest, UnknownFlagIsAParseError) {
  ExpectError(TuneArgs({"--budgett", "5"}), "--budgett");
}

TEST_F(CliErrorTest, DatabaseCommandsRefuseMissingDatabase) {
  CommandResult result = RunGlimpse({"db", "list", "--db", Db("absent.db")});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("absent.db"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(Db("absent.db")));
}

TEST_F(CliErrorTest, NotADatabaseIsRefused) {
  std::string path = Db("garbage.db");
  std::ofstream(path) << "garbage garbage garbage garbage garbage garbage garbage";
  CommandResult result = RunGlimpse({"db", "list", "--db", path});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find(path), std::string::npos) << result.err;
}

TEST_F(CliErrorTest, HelpWorksForEveryCommand) {
  for (std::vector<std::string> args :
       {std::vector<std::string>{"--help"}, {"tune", "--help"}, {"db", "--help"},
        {"db", "list", "--help"}, {"db", "best", "--help"}, {"db", "export", "--help"},
        {"db", "import", "--help"}, {"space", "show", "--help"}}) {
    CommandResult result = RunGlimpse(args);
    EXPECT_EQ(result.exit_code, 0) << args[0];
    EXPECT_NE(result.out.find("Usage"), std::string::npos) << result.out;
  }
}

}  // namespace
}  // namespace glimpse::testing
