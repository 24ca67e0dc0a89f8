// `glimpse tune` end to end on the bundled recorded space: results, reproducibility, and
// durability (kill -9 mid-run, rerun the same command, nothing lost and nothing measured twice).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <thread>

#include "cli_fixture.h"
#include "glimpse/database.h"

namespace glimpse::testing {
namespace {

std::vector<TuningRecord> AllRecords(const std::string& path) {
  Database database(path, /*create=*/false);
  std::vector<TuningRecord> records;
  for (const WorkloadEntry& workload : database.Workloads()) {
    for (TuningRecord& r : database.Records(workload.key)) records.push_back(std::move(r));
  }
  return records;
}

TEST_F(CliTest, TuneReportsBestAgainstRecordedOptimum) {
  CommandResult result = RunGlimpse(TuneArgs({"--budget", "100", "--json", "--db", Db()}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  Json summary = Json::parse(result.out);
  EXPECT_EQ(summary["measurements"], 100);
  EXPECT_EQ(summary["resumed"], 0);
  EXPECT_EQ(summary["device"], "NVIDIA A100-PCIE-40GB");
  ASSERT_TRUE(summary["best"].is_object());
  double best = summary["best"]["time_s"];
  double optimum = summary["recorded_optimum_s"];
  EXPECT_GE(best, optimum);
  EXPECT_NEAR(summary["fraction_of_optimum"].get<double>(), optimum / best, 1e-12);
  EXPECT_GT(summary["tuning_time_s"].get<double>(), 0.0);
  // The failures the summary counts are the failed records in the database.
  std::vector<TuningRecord> records = AllRecords(Db());
  ASSERT_EQ(records.size(), 100u);
  int64_t failed = 0;
  for (const TuningRecord& r : records) failed += r.status != MeasureStatus::kOk;
  EXPECT_EQ(summary["failed"], failed);
}

TEST_F(CliTest, HumanSummaryNamesTheEssentials) {
  CommandResult result = RunGlimpse(TuneArgs({"--budget", "40", "--no-db"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* needle : {"best time", "best config", "measurements", "failed",
                             "recorded optimum", "NVIDIA A100-PCIE-40GB"}) {
    EXPECT_NE(result.out.find(needle), std::string::npos) << needle << " in:\n" << result.out;
  }
}

TEST_F(CliTest, SameSeedSameTrajectory) {
  for (const char* tuner : {"random", "ga", "sa", "grid"}) {
    std::vector<std::string> hashes[2];
    for (int run = 0; run < 2; ++run) {
      std::string db = Db(std::string(tuner) + std::to_string(run) + ".db");
      CommandResult result =
          RunGlimpse(TuneArgs({"--tuner", tuner, "--budget", "60", "--seed", "7", "--db", db}));
      ASSERT_EQ(result.exit_code, 0) << result.err;
      for (const TuningRecord& r : AllRecords(db)) hashes[run].push_back(r.config_hash);
    }
    EXPECT_EQ(hashes[0].size(), 60u) << tuner;
    EXPECT_EQ(hashes[0], hashes[1]) << tuner;
  }
}

TEST_F(CliTest, KilledRunResumesWithoutLossOrRepeats) {
  const int kBudget = 240, kBatch = 8;
  std::vector<std::string> args =
      TuneArgs({"--tuner", "random", "--budget", std::to_string(kBudget), "--batch",
                std::to_string(kBatch), "--seed", "11", "--db", Db()});
  // Slow the replay down so that the run is still going when it is killed.
  std::vector<std::string> paced = args;
  paced.insert(paced.end(), {"--pace-ms", "10"});
  pid_t child = SpawnGlimpse(paced);
  // Wait until some batches are committed, then kill without warning.
  size_t committed = 0;
  for (int i = 0; i < 400 && committed < 3 * kBatch; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    if (std::filesystem::exists(Db())) {
      try {
        committed = AllRecords(Db()).size();
      } catch (const std::exception&) {
        committed = 0;  // schema not written yet
      }
    }
  }
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run finished before it could be killed";

  std::vector<TuningRecord> before = AllRecords(Db());
  ASSERT_GE(before.size(), static_cast<size_t>(3 * kBatch));
  ASSERT_LT(before.size(), static_cast<size_t>(kBudget));
  EXPECT_EQ(before.size() % kBatch, 0u) << "a batch was half-committed";

  CommandResult resumed = RunGlimpse(args);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  std::vector<TuningRecord> after = AllRecords(Db());
  ASSERT_EQ(after.size(), static_cast<size_t>(kBudget));
  std::set<std::string> distinct;
  for (const TuningRecord& r : after) distinct.insert(r.config_hash);
  EXPECT_EQ(distinct.size(), after.size()) << "a configuration was measured twice";
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(after[i].id, before[i].id);
    EXPECT_EQ(after[i].config_hash, before[i].config_hash);
  }

  // Running the finished command again measures nothing new and reports the same best.
  CommandResult again = RunGlimpse([&] {
    auto a = args;
    a.push_back("--json");
    return a;
  }());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(AllRecords(Db()).size(), static_cast<size_t>(kBudget));
  Json summary = Json::parse(again.out);
  EXPECT_EQ(summary["resumed"], kBudget);
  EXPECT_EQ(summary["measurements"], kBudget);
}

TEST_F(CliTest, TimeBudgetAloneLimitsSimulatedTime) {
  CommandResult result =
      RunGlimpse(TuneArgs({"--time-budget", "20", "--batch", "4", "--json", "--no-db"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  Json summary = Json::parse(result.out);
  EXPECT_EQ(summary["stop_reason"], "time budget");
  EXPECT_GE(summary["tuning_time_s"].get<double>(), 20.0);
  // Checked before each round, so one batch of 4 recorded measurements can overshoot at most.
  EXPECT_LT(summary["tuning_time_s"].get<double>(), 20.0 + 4 * 10.0);
}

TEST_F(CliTest, ListTunersNamesTheBuiltIns) {
  CommandResult result = RunGlimpse({"tune", "--list-tuners"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* name : {"random", "grid", "ga", "sa"}) {
    EXPECT_NE(result.out.find(name), std::string::npos) << result.out;
  }
}

}  // namespace
}  // namespace glimpse::testing
