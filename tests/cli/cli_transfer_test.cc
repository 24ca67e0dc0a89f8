// Transfer learning from the command line: history from the database or from recorded files.
#include <filesystem>

#include "cli_fixture.h"
#include "glimpse/json.h"

namespace glimpse::testing {
namespace {

std::vector<std::string> PnpolyTune(const std::string& db, std::vector<std::string> extra,
                                    const std::string& tuner = "xgb",
                                    const std::string& progress = "quiet") {
  std::vector<std::string> args = {"tune",
                                   "--space",
                                   RepoDataPath("recorded/pnpoly/RTX_3090.json.gz"),
                                   "--t1",
                                   RepoDataPath("recorded/t1/pnpoly.json"),
                                   "--db",
                                   db,
                                   "--progress",
                                   progress,
                                   "--json",
                                   "--tuner",
                                   tuner};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST_F(CliTest, TransferFromAnotherDeviceInTheDatabaseImprovesTheFirstBatch) {
  // The same recorded space imported as if measured on another GPU: a perfect history.
  CommandResult imported =
      RunGlimpse({"db", "import", RepoDataPath("recorded/pnpoly/RTX_3090.json.gz"), "--t1",
                  RepoDataPath("recorded/t1/pnpoly.json"), "--format", "recorded", "--device",
                  "Another GPU", "--db", Db()});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;

  CommandResult cold = RunGlimpse(PnpolyTune(Db("cold.db"), {"--budget", "16"}));
  CommandResult warm = RunGlimpse(PnpolyTune(Db(), {"--budget", "16", "--transfer-from-db"}));
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  double cold_fraction = Json::parse(cold.out)["fraction_of_optimum"];
  double warm_fraction = Json::parse(warm.out)["fraction_of_optimum"];
  // A base model fitted on every entry of the space ranks the optimum's neighbourhood first.
  EXPECT_GT(warm_fraction, 0.95);
  EXPECT_GT(warm_fraction, cold_fraction);
  // The other device's records are history, not resumed measurements of this device.
  EXPECT_EQ(Json::parse(warm.out)["resumed"], 0);
}

TEST_F(CliTest, TransferNeedsAStrategyThatLearnsFromHistory) {
  CommandResult result = RunGlimpse(PnpolyTune(Db(), {"--transfer-from-db"}, "ga"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("xgb"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(Db()));
}

TEST_F(CliTest, TransferFromAMissingFileIsNamedAndLeavesNoDatabase) {
  CommandResult result =
      RunGlimpse(PnpolyTune(Db(), {"--transfer-from", dir_ + "/missing.json.gz"}));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("missing.json.gz"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(Db()));
}

TEST_F(CliTest, TransferFromRecordedFilesOfOtherDevices) {
  std::string shared = SharedDatasetsDir();
  if (shared.empty()) GTEST_SKIP() << "../shared/datasets is not beside this checkout";
  std::vector<std::string> args =
      PnpolyTune(Db(),
                 {"--budget", "16", "--transfer-from", shared + "/pnpoly/RTX_2080_Ti.json.gz",
                  "--transfer-from", shared + "/pnpoly/RTX_3060_laptop.json.gz"},
                 "xgb", "log");
  CommandResult result = RunGlimpse(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("transfer: "), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("transfer: 0 records"), std::string::npos) << result.err;
}

TEST_F(CliTest, ValidityDrivenInitialisationChecksBeforeMeasuring) {
  CommandResult result =
      RunGlimpse(PnpolyTune(Db(), {"--budget", "80", "--tuner-option", "validity_init=true",
                                   "--tuner-option", "n_samples=200"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  Json summary = Json::parse(result.out);
  // Presampling classifies n_samples configurations with the checker; they are not measurements.
  EXPECT_EQ(summary["validity_checks"], 200);
  EXPECT_GT(summary["presampling_s"].get<double>(), 0.0);
  EXPECT_EQ(summary["measurements"], 80);
}

}  // namespace
}  // namespace glimpse::testing
