// The results file: round trips, schema errors that name the field, and merging the files of two
// tools into one table.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "glimpse/error.h"
#include "glimpse/evaluation.h"

namespace glimpse {
namespace {

StudyResults OneToolResults(const std::string& tool, int seeds) {
  StudyResults results;
  results.settings.max_measurements = 100;
  results.settings.seeds = seeds;
  results.spaces = {
      {"pnpoly/RTX_3090", "pnpoly", "RTX 3090", "pnpoly/RTX_3090.json.gz", 4092, 3774, 0.002}};
  for (int seed = 0; seed < seeds; ++seed) {
    RunRecord run;
    run.space = "pnpoly/RTX_3090";
    run.tool = tool;
    run.strategy = "random";
    run.seed = static_cast<uint64_t>(seed);
    run.measurements = 100;
    run.failed = 7;
    run.not_recorded = seed;
    run.stop_reason = "measurement budget";
    run.simulated_s = 50.0;
    run.max_measurements = 100;
    run.best_curve = {{1, 0.5, 0.004}, {10 + seed, 5.0, 0.002}};
    run.first_batch_performance = {0.5, 0.0, 1.0};
    results.runs.push_back(run);
  }
  Summarize(results);
  return results;
}

std::string ErrorOf(const Json& json) {
  try {
    ResultsFromJson(json, "r.json");
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(ResultsFileTest, RoundTripsThroughJson) {
  StudyResults results = OneToolResults("glimpse", 3);
  Json json = ResultsToJson(results);
  StudyResults back = ResultsFromJson(json, "r.json");
  ASSERT_EQ(back.runs.size(), 3u);
  for (size_t i = 0; i < back.runs.size(); ++i) {
    EXPECT_EQ(RunToJson(back.runs[i]), RunToJson(results.runs[i]));
  }
  EXPECT_EQ(back.settings.max_measurements, 100);
  EXPECT_EQ(ResultsToJson(back)["settings"], json["settings"]);
}

TEST(ResultsFileTest, AGzPathIsWrittenCompressedAndBothFormsReadBack) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("glimpse-results-gz-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  StudyResults results = OneToolResults("glimpse", 2);
  const std::string plain = (dir / "r.json").string();
  const std::string packed = (dir / "r.json.gz").string();
  WriteResults(results, plain);
  WriteResults(results, packed);
  std::ifstream in(packed, std::ios::binary);
  ASSERT_EQ(in.get(), 0x1f);  // the gzip magic, not '{'
  ASSERT_EQ(in.get(), 0x8b);
  in.close();
  EXPECT_LT(std::filesystem::file_size(packed), std::filesystem::file_size(plain));
  for (const std::string& path : {plain, packed}) {
    StudyResults back = LoadResults(path);
    ASSERT_EQ(back.runs.size(), 2u) << path;
    EXPECT_EQ(RunToJson(back.runs[1]), RunToJson(results.runs[1])) << path;
  }
  // A compressed file under a plain name reads too (the content decides, not the name).
  const std::string renamed = (dir / "renamed.json").string();
  std::filesystem::copy_file(packed, renamed);
  EXPECT_EQ(LoadResults(renamed).runs.size(), 2u);
  // A truncated compressed file is an error that names it, not a crash or a partial study.
  std::filesystem::resize_file(renamed, std::filesystem::file_size(renamed) / 2);
  try {
    LoadResults(renamed);
    ADD_FAILURE() << "a truncated file loaded";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(renamed), std::string::npos) << error.what();
  }
  EXPECT_THROW(LoadResults((dir / "missing.json").string()), Error);
  std::filesystem::remove_all(dir);
}

TEST(ResultsFileTest, ErrorsNameTheFileAndField) {
  Json good = ResultsToJson(OneToolResults("glimpse", 1));
  EXPECT_EQ(ErrorOf(good), "");
  Json bad = good;
  bad["schema"] = "other/2";
  EXPECT_NE(ErrorOf(bad).find("r.json: schema"), std::string::npos);
  bad = good;
  bad["runs"][0].erase("measurements");
  EXPECT_NE(ErrorOf(bad).find("r.json: runs[0].measurements: missing"), std::string::npos);
  bad = good;
  bad["runs"][0]["best_curve"] = {{5, 1.0, 0.003}, {2, 1.0, 0.002}};
  EXPECT_NE(ErrorOf(bad).find("runs[0].best_curve"), std::string::npos);
  bad = good;
  bad["runs"][0]["space"] = "gemm/RTX_3090";
  EXPECT_NE(ErrorOf(bad).find("is not in 'spaces'"), std::string::npos);
  bad = good;
  bad["spaces"][0]["optimum_s"] = 0;
  EXPECT_NE(ErrorOf(bad).find("spaces[0].optimum_s"), std::string::npos);
  // A budget no int64 holds (found by fuzzing: the conversion was undefined behaviour).
  bad = good;
  bad["runs"][0]["max_measurements"] = 1.02e20;
  EXPECT_NE(ErrorOf(bad).find("runs[0].max_measurements: expected a count from 0 to 9e15"),
            std::string::npos)
      << ErrorOf(bad);
  bad = good;
  bad["settings"]["max_measurements"] = -5.0;
  EXPECT_NE(ErrorOf(bad).find("settings.max_measurements: expected a count"), std::string::npos)
      << ErrorOf(bad);
}

TEST(ResultsFileTest, NotRecordedIsOptionalAndAtMostTheFailures) {
  Json json = ResultsToJson(OneToolResults("glimpse", 2));
  EXPECT_EQ(json["runs"][1]["not_recorded"], 1);
  json["runs"][1].erase("not_recorded");  // files written before the field existed
  EXPECT_EQ(ResultsFromJson(json, "r.json").runs[1].not_recorded, 0);
  json["runs"][1]["not_recorded"] = 8;  // more than its 7 failures
  EXPECT_NE(ErrorOf(json).find("runs[1].not_recorded: more than failed"), std::string::npos);
}

TEST(ResultsFileTest, ARunWithoutItsOwnBudgetTakesTheSettings) {
  Json json = ResultsToJson(OneToolResults("kernel_tuner", 1));
  json["runs"][0].erase("max_measurements");
  json["settings"]["max_measurements"] = 80;
  EXPECT_EQ(ResultsFromJson(json, "r.json").runs[0].max_measurements, 80);
}

TEST(ResultsFileTest, AnUnreportedTunerCpuTimeStaysUnknown) {
  Json json = ResultsToJson(OneToolResults("kernel_tuner", 2));
  json["runs"][0]["tuner_cpu_s"] = nullptr;
  json["runs"][1]["tuner_cpu_s"] = nullptr;
  StudyResults results = ResultsFromJson(json, "r.json");
  EXPECT_TRUE(std::isnan(results.runs[0].tuner_cpu_s));
  EXPECT_TRUE(std::isnan(results.summaries[0].tuner_cpu_s.median));
  EXPECT_TRUE(ResultsToJson(results)["summaries"][0]["tuner_cpu_s"]["median"].is_null());
  EXPECT_TRUE(RunToJson(results.runs[0])["tuner_cpu_s"].is_null());
}

TEST(MergeResultsTest, OneTableForBothTools) {
  std::vector<std::string> warnings;
  StudyResults ours = OneToolResults("glimpse", 3);
  StudyResults peer = OneToolResults("kernel_tuner", 2);
  peer.spaces[0].optimum_s *= 1.01;  // a peer that computed its optimum differently
  StudyResults merged = MergeResults({{"ours.json", ours}, {"peer.json", peer}}, &warnings);
  ASSERT_EQ(merged.spaces.size(), 1u);
  EXPECT_EQ(merged.spaces[0].optimum_s, 0.002);  // the first file's
  EXPECT_EQ(merged.runs.size(), 5u);
  ASSERT_EQ(merged.summaries.size(), 2u);
  EXPECT_EQ(merged.summaries[0].tool, "glimpse");
  EXPECT_EQ(merged.summaries[0].runs, 3);
  EXPECT_EQ(merged.summaries[1].tool, "kernel_tuner");
  EXPECT_EQ(merged.summaries[1].runs, 2);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("peer.json"), std::string::npos);

  try {
    MergeResults({{"a.json", ours}, {"b.json", ours}}, nullptr);
    FAIL() << "expected an Error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("in both a.json and b.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace glimpse
