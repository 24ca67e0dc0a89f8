// End to end on the bundled spaces: a small study runs every (space, strategy, seed), writes a
// results file that validates, gives identical runs for identical seeds, and resumes from its
// journal without redoing finished runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "glimpse/error.h"
#include "glimpse/evaluation.h"
#include "test_paths.h"

namespace glimpse {
namespace {

constexpr int64_t kBudget = 50;

StudyConfig SmallStudy() {
  StudyConfig study =
      LoadStudyConfig(std::string(GLIMPSE_SOURCE_DIR) + "/bench/configs/quick.json");
  study.seeds = 2;
  study.max_measurements = kBudget;
  study.checkpoints = {25, 50};
  // A model tuner with a small plan so that its model (not only its random start) is exercised.
  study.strategies = {
      {"random", "random", Json::object(), ""},
      {"xgb", "xgb", Json{{"plan_size", 16}, {"sa_n_iter", 60}, {"sa_parallel_size", 32}}, ""}};
  return study;
}

StudyRunOptions Options(const std::string& output, std::ostream& progress) {
  StudyRunOptions options;
  options.output_path = output;
  options.jobs = 2;
  options.progress = &progress;
  return options;
}

// A run's JSON without the fields that measure real time.
Json Untimed(const RunRecord& run) {
  Json json = RunToJson(run);
  json.erase("tuner_cpu_s");
  json.erase("wall_s");
  return json;
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class StudyRunTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = testing::MakeTempDir("glimpse-bench");
    std::ostringstream progress;
    first_ = new StudyResults(RunStudy(SmallStudy(), Options(dir_ + "/a.json", progress)));
    progress_ = progress.str();
  }
  static void TearDownTestSuite() { delete first_; }

  static std::string dir_;
  static StudyResults* first_;
  static std::string progress_;
};
std::string StudyRunTest::dir_;
StudyResults* StudyRunTest::first_ = nullptr;
std::string StudyRunTest::progress_;

TEST_F(StudyRunTest, EveryRunCompletesWithinItsBudget) {
  const StudyResults& results = *first_;
  ASSERT_EQ(results.spaces.size(), 2u);
  ASSERT_EQ(results.runs.size(), 2u * 2u * 2u);  // spaces × seeds × strategies
  std::map<std::string, double> optimum;
  for (const SpaceInfo& space : results.spaces) {
    EXPECT_GT(space.valid, 0);
    EXPECT_GT(space.recorded_ok, 0);
    EXPECT_LE(space.recorded_ok, space.valid);
    optimum[space.id] = space.optimum_s;
  }
  EXPECT_TRUE(optimum.count("pnpoly/RTX_3090"));
  for (const RunRecord& run : results.runs) {
    SCOPED_TRACE(run.space + " " + run.strategy + " " + std::to_string(run.seed));
    EXPECT_EQ(run.tool, "glimpse");
    EXPECT_EQ(run.measurements, kBudget);
    EXPECT_EQ(run.stop_reason, "measurement budget");
    EXPECT_LE(run.failed, run.measurements);
    EXPECT_EQ(run.not_recorded, 0);  // both files are complete recordings
    EXPECT_GT(run.simulated_s, 0.0);
    EXPECT_GE(run.tuner_cpu_s, 0.0);
    ASSERT_FALSE(run.best_curve.empty());
    for (size_t i = 1; i < run.best_curve.size(); ++i) {
      EXPECT_LT(run.best_curve[i].best_time_s, run.best_curve[i - 1].best_time_s);
      EXPECT_GT(run.best_curve[i].measurement, run.best_curve[i - 1].measurement);
    }
    EXPECT_GE(run.best_curve.back().best_time_s, optimum[run.space] * (1 - 1e-12));
    ASSERT_EQ(run.first_batch_performance.size(), static_cast<size_t>(kBudget));
    int64_t failed_in_batch = 0;
    for (double performance : run.first_batch_performance) {
      EXPECT_GE(performance, 0.0);
      EXPECT_LE(performance, 1.0 + 1e-12);
      failed_in_batch += performance == 0.0;
    }
    EXPECT_EQ(failed_in_batch, run.failed);  // the whole run is its first batch here
  }
  EXPECT_EQ(results.summaries.size(), 2u * 2u);
  EXPECT_NE(progress_.find("bench: 8/8 runs"), std::string::npos) << progress_;
}

TEST_F(StudyRunTest, TheFileValidatesAndHoldsTheSchemasFields) {
  std::ifstream in(dir_ + "/a.json");
  Json json = Json::parse(in);
  EXPECT_EQ(json["schema"], kResultsSchema);
  for (const char* key :
       {"created", "machine", "command", "settings", "spaces", "runs", "summaries"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  EXPECT_EQ(json["settings"]["max_measurements"], kBudget);
  EXPECT_TRUE(json["settings"]["max_seconds"].is_null());
  const Json& summary = json["summaries"][0];
  for (const char* key : {"measurements_to_fraction", "fraction_at", "failed_fraction",
                          "first_batch", "simulated_s_to_0.95", "tuner_cpu_s"}) {
    EXPECT_TRUE(summary.contains(key)) << key;
  }
  EXPECT_TRUE(summary["measurements_to_fraction"].contains("1.0"));
  EXPECT_TRUE(summary["measurements_to_fraction"].contains("0.95"));
  EXPECT_TRUE(summary["fraction_at"].contains("50"));
  EXPECT_TRUE(summary["first_batch"].contains("best_median"));
  StudyResults loaded = LoadResults(dir_ + "/a.json");
  ASSERT_EQ(loaded.runs.size(), first_->runs.size());
  for (size_t i = 0; i < loaded.runs.size(); ++i) {
    EXPECT_EQ(RunToJson(loaded.runs[i]), RunToJson(first_->runs[i]));
  }
  // No temporary file is left behind by the atomic write.
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/a.json.tmp"));

  std::ostringstream table;
  PrintResultsTable(loaded, table);
  EXPECT_NE(table.str().find("pnpoly/RTX_3090"), std::string::npos);
  EXPECT_NE(table.str().find("All spaces"), std::string::npos);
}

TEST_F(StudyRunTest, AFixedSeedGivesIdenticalRuns) {
  std::ostringstream progress;
  StudyResults again = RunStudy(SmallStudy(), Options(dir_ + "/b.json", progress));
  ASSERT_EQ(again.runs.size(), first_->runs.size());
  for (size_t i = 0; i < again.runs.size(); ++i) {
    EXPECT_EQ(Untimed(again.runs[i]), Untimed(first_->runs[i])) << i;
  }
  // Different seeds do differ (the check above is not vacuous).
  EXPECT_NE(Untimed(first_->runs[0])["best_curve"], Untimed(first_->runs[2])["best_curve"]);
}

TEST_F(StudyRunTest, ResumeSkipsTheRunsInTheJournal) {
  const std::string output = dir_ + "/c.json";
  const std::string journal = output + ".partial.jsonl";
  std::vector<std::string> lines = ReadLines(dir_ + "/a.json.partial.jsonl");
  ASSERT_EQ(lines.size(), 8u);
  {
    // Three finished runs and a line cut short by a kill.
    std::ofstream out(journal);
    for (int i = 0; i < 3; ++i) out << lines[i] << "\n";
    out << lines[3].substr(0, lines[3].size() / 2);
  }
  std::ostringstream progress;
  StudyResults resumed = RunStudy(SmallStudy(), Options(output, progress));
  EXPECT_NE(progress.str().find("(3 from the journal)"), std::string::npos) << progress.str();
  EXPECT_NE(progress.str().find("1 unreadable line"), std::string::npos) << progress.str();
  ASSERT_EQ(resumed.runs.size(), first_->runs.size());
  // The journal's runs were taken as they were (their timings too: they were not redone).
  std::set<std::string> journalled;
  for (int i = 0; i < 3; ++i) journalled.insert(Json::parse(lines[i])["run"].dump());
  int reused = 0;
  for (size_t i = 0; i < resumed.runs.size(); ++i) {
    EXPECT_EQ(Untimed(resumed.runs[i]), Untimed(first_->runs[i]));
    reused += journalled.count(RunToJson(resumed.runs[i]).dump());
  }
  EXPECT_EQ(reused, 3);
  // Every run is in the journal now, each readable.
  int readable = 0;
  for (const std::string& line : ReadLines(journal)) {
    readable += Json::accept(line);
  }
  EXPECT_EQ(readable, 3 + 5);

  // Changed settings do not reuse the journal.
  StudyConfig other = SmallStudy();
  other.max_measurements = 20;
  other.strategies.resize(1);
  std::ostringstream progress2;
  StudyResults changed = RunStudy(other, Options(output, progress2));
  EXPECT_EQ(progress2.str().find("from the journal"), std::string::npos) << progress2.str();
  EXPECT_EQ(changed.runs.front().measurements, 20);
}

// RunStudy's error for `study`, after checking that it left no results file or journal behind.
std::string RefusalBeforeAnyRun(const StudyConfig& study) {
  const std::string dir = testing::MakeTempDir("glimpse-bench-error");
  std::ostringstream progress;
  std::string message = "(no error)";
  try {
    RunStudy(study, Options(dir + "/out.json", progress));
  } catch (const Error& error) {
    message = error.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/out.json"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/out.json.partial.jsonl"));
  return message;
}

TEST(StudyRunErrorsTest, AnUnknownTunerFailsBeforeAnyRun) {
  StudyConfig study = SmallStudy();
  study.strategies.push_back({"mystery", "no-such-tuner", Json::object(), ""});
  const std::string message = RefusalBeforeAnyRun(study);
  EXPECT_NE(message.find("quick.json: strategies[2] 'mystery'"), std::string::npos) << message;
  EXPECT_NE(message.find("unknown tuner 'no-such-tuner'"), std::string::npos) << message;
}

// A group whose restrictions leave no configuration is refused before any run, naming them —
// not reported as a space "with no optimum".
TEST(StudyRunErrorsTest, ASpaceWithoutAValidConfigurationFailsBeforeAnyRun) {
  StudyConfig study = SmallStudy();
  study.groups.back().restrictions = {"block_size_x < 0"};
  const std::string message = RefusalBeforeAnyRun(study);
  EXPECT_NE(message.find("pnpoly/RTX_3090.json.gz: no configuration of its "), std::string::npos)
      << message;
  EXPECT_NE(message.find("satisfies the restrictions"), std::string::npos) << message;
  EXPECT_NE(message.find("'block_size_x < 0'"), std::string::npos) << message;
}

}  // namespace
}  // namespace glimpse
