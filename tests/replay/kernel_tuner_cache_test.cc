// Loading Kernel Tuner caches: the small fixture, files cut short, and malformed files.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "glimpse/replay.h"
#include "replay_test_util.h"

namespace glimpse {
namespace {

using testing::ErrorMessageOf;
using testing::MakeTempDir;
using testing::TestDataPath;
using testing::WriteTextFile;

// The first entry of tests/data/pnpoly_small.json (times in ms in the file).
constexpr double kFirstTimeMs = 43.55386238098144;
constexpr double kFirstCompileMs = 0.03068055957555771;
constexpr double kFirstBenchmarkMs = 436.0794024541974;

Config ConfigOf(const RecordedSpace& recorded, const Json& values) {
  return recorded.space.ConfigFromJson(values);
}

const RecordedEntry& EntryOf(const RecordedSpace& recorded, const Json& values) {
  return recorded.entries.at(recorded.space.ToDenseIndex(ConfigOf(recorded, values)));
}

TEST(KernelTunerCache, ReadsHeaderKnobsAndEntries) {
  RecordedSpace recorded = LoadRecordedSpace(TestDataPath("pnpoly_small.json"));
  EXPECT_EQ(recorded.format, RecordedFormat::kKernelTunerCache);
  EXPECT_EQ(recorded.device_name, "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(recorded.kernel_name, "cn_pnpoly");
  EXPECT_EQ(recorded.problem_size, Json(20000000));
  ASSERT_EQ(recorded.space.NumKnobs(), 4u);
  const char* names[] = {"between_method", "block_size_x", "tile_size", "use_method"};
  const size_t sizes[] = {4, 31, 11, 3};
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(recorded.space.knobs()[k].name(), names[k]);
    EXPECT_EQ(recorded.space.knobs()[k].size(), sizes[k]);
    EXPECT_EQ(recorded.space.knobs()[k].kind(), KnobKind::kOrdered);
  }
  EXPECT_EQ(recorded.entries.size(), 6u);
  EXPECT_EQ(recorded.outside_restrictions, 0);
  auto counts = recorded.CountByStatus();
  EXPECT_EQ(counts[MeasureStatus::kOk], 5);
  EXPECT_EQ(counts[MeasureStatus::kRuntimeDevice], 1);

  const RecordedEntry& first = EntryOf(
      recorded, {{"between_method", 0}, {"block_size_x", 32}, {"tile_size", 1}, {"use_method", 0}});
  EXPECT_EQ(first.status, MeasureStatus::kOk);
  EXPECT_DOUBLE_EQ(first.time_s, kFirstTimeMs * 1e-3);
  ASSERT_EQ(first.samples_s.size(), 10u);
  EXPECT_DOUBLE_EQ(first.samples_s[0], 43.293697357177734 * 1e-3);
  EXPECT_DOUBLE_EQ(first.compile_time_s, kFirstCompileMs * 1e-3);
  EXPECT_DOUBLE_EQ(first.benchmark_time_s, kFirstBenchmarkMs * 1e-3);

  const RecordedEntry& failed =
      EntryOf(recorded,
              {{"between_method", 0}, {"block_size_x", 544}, {"tile_size", 20}, {"use_method", 1}});
  EXPECT_EQ(failed.status, MeasureStatus::kRuntimeDevice);
  EXPECT_TRUE(failed.samples_s.empty());
  EXPECT_DOUBLE_EQ(failed.compile_time_s, 116.52631312608719 * 1e-3);

  auto best = recorded.Best();
  ASSERT_TRUE(best.has_value());
  EXPECT_DOUBLE_EQ(best->second.time_s, 23.948902130126953 * 1e-3);
  EXPECT_EQ(recorded.space.ConfigToJson(recorded.space.FromDenseIndex(best->first))["tile_size"],
            Json(2));
}

TEST(KernelTunerCache, FilesCutShortKeepTheirCompleteEntries) {
  struct Case {
    const char* file;
    size_t entries;
  };
  const Case cases[] = {
      {"pnpoly_cut_after_comma.json", 3},      {"pnpoly_cut_mid_entry.json", 3},
      {"pnpoly_cut_in_samples.json", 3},       {"pnpoly_cut_before_root_brace.json", 6},
      {"pnpoly_cut_after_cache_open.json", 0},
  };
  RecordedSpace full = LoadRecordedSpace(TestDataPath("pnpoly_small.json"));
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    RecordedSpace cut = LoadRecordedSpace(TestDataPath(c.file));
    EXPECT_EQ(cut.entries.size(), c.entries);
    EXPECT_EQ(cut.space.Fingerprint(), full.space.Fingerprint());
    // Every entry read from a cut file is the complete entry of the full file.
    for (const auto& [index, entry] : cut.entries) {
      ASSERT_TRUE(full.entries.count(index));
      const RecordedEntry& expected = full.entries.at(index);
      EXPECT_EQ(entry.status, expected.status);
      EXPECT_EQ(entry.samples_s, expected.samples_s);
      EXPECT_EQ(entry.time_s, expected.time_s);
    }
  }
}

TEST(KernelTunerCache, FileCutInsideTheHeaderIsAnError) {
  std::string path = TestDataPath("pnpoly_cut_in_header.json");
  std::string message = ErrorMessageOf([&] { LoadRecordedSpace(path); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("JSON"), std::string::npos) << message;
}

constexpr const char* kTinyHeader =
    R"({"device_name": "", "kernel_name": "k", "problem_size": [8],
        "tune_params_keys": ["b", "a", "mode"],
        "tune_params": {"a": [1, 2], "b": [0.5, 1.5], "mode": ["row", "col"]}, "cache": )";

TEST(KernelTunerCache, KnobKindsOrderAndStatusesFromStrings) {
  std::string dir = MakeTempDir("glimpse-kt");
  std::string path = WriteTextFile(dir, "tiny_GPU.json", std::string(kTinyHeader) + R"({
      "0.5,1,row": {"mode": "row", "a": 1, "b": 0.5, "time": 2.0, "times": [1.0, 3.0],
                    "compile_time": 10, "benchmark_time": 5},
      "0.5,2,row": {"b": 0.5, "a": 2, "mode": "row", "time": "CompilationFailedConfig",
                    "compile_time": 20},
      "1.5,2,row": {"b": 1.5, "a": 2, "mode": "row", "time": "RuntimeFailedConfig"},
      "1.5,2,col": {"b": 1.5, "a": 2, "mode": "col", "time": "InvalidConfig"}}})");
  RecordedSpace recorded = LoadRecordedSpace(path);
  ASSERT_EQ(recorded.space.NumKnobs(), 3u);
  EXPECT_EQ(recorded.space.knobs()[0].name(), "b");
  EXPECT_EQ(recorded.space.knobs()[1].name(), "a");
  EXPECT_EQ(recorded.space.knobs()[0].kind(), KnobKind::kOrdered);
  EXPECT_EQ(recorded.space.knobs()[2].kind(), KnobKind::kCategorical);
  // Empty device name in the file: the file's base name.
  EXPECT_EQ(recorded.device_name, "tiny_GPU");
  auto counts = recorded.CountByStatus();
  EXPECT_EQ(counts[MeasureStatus::kOk], 1);
  EXPECT_EQ(counts[MeasureStatus::kCompileDevice], 1);
  EXPECT_EQ(counts[MeasureStatus::kRuntimeDevice], 1);
  EXPECT_EQ(counts[MeasureStatus::kUnknown], 1);
  const RecordedEntry& ok = EntryOf(recorded, {{"a", 1}, {"b", 0.5}, {"mode", "row"}});
  EXPECT_DOUBLE_EQ(ok.time_s, 2e-3);
  EXPECT_EQ(ok.samples_s, (std::vector<double>{1e-3, 3e-3}));
  EXPECT_DOUBLE_EQ(ok.compile_time_s, 10e-3);
  EXPECT_DOUBLE_EQ(ok.benchmark_time_s, 5e-3);
  const RecordedEntry& runtime = EntryOf(recorded, {{"a", 2}, {"b", 1.5}, {"mode", "row"}});
  EXPECT_EQ(runtime.compile_time_s, 0.0);  // missing → 0
  EXPECT_EQ(runtime.benchmark_time_s, 0.0);

  ReplayLoadOptions options;
  options.device_name = "Named GPU";
  options.restrictions = {"a * b < 3"};
  RecordedSpace restricted = LoadRecordedSpace(path, options);
  EXPECT_EQ(restricted.device_name, "Named GPU");
  EXPECT_EQ(restricted.entries.size(), 2u);
  EXPECT_EQ(restricted.outside_restrictions, 2);
}

TEST(KernelTunerCache, MalformedFilesNameThePathAndTheProblem) {
  std::string dir = MakeTempDir("glimpse-kt-bad");
  struct Case {
    const char* name;
    std::string text;
    const char* says;  // part of the message
  };
  const Case cases[] = {
      {"garbage.json", "this is not json", "not valid JSON at byte"},
      {"empty.json", "", "empty"},
      {"no_cache.json", R"({"tune_params": {"a": [1]}})", "no \"cache\""},
      {"array.json", "[1, 2]", "expected an object"},
      {"unknown_knob.json",
       R"({"tune_params_keys": ["a"], "tune_params": {"a": [1, 2]},
           "cache": {"1,7": {"a": 1, "c": 7, "time": 1.0}}})",
       "knob tune_params lacks"},
      {"keys_name_missing.json",
       R"({"tune_params_keys": ["a", "c"], "tune_params": {"a": [1, 2]}, "cache": {}})", "'c'"},
      {"value_not_listed.json",
       R"({"tune_params_keys": ["a"], "tune_params": {"a": [1, 2]},
           "cache": {"3": {"a": 3, "time": 1.0}}})",
       "knob 'a' has value 3"},
      {"missing_knob_value.json",
       R"({"tune_params_keys": ["a", "b"], "tune_params": {"a": [1, 2], "b": [1]},
           "cache": {"1,1": {"a": 1, "time": 1.0}}})",
       "no value for knob 'b'"},
      {"no_time.json",
       R"({"tune_params_keys": ["a"], "tune_params": {"a": [1, 2]},
           "cache": {"1": {"a": 1}}})",
       "no \"time\""},
      {"broken_middle.json",
       R"({"tune_params_keys": ["a"], "tune_params": {"a": [1, 2]},
           "cache": {"1": {"a": 1, "time": 1.0}, "2": {"a": 2 "time": 1.0}}})",
       "not valid JSON at byte"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string path = WriteTextFile(dir, c.name, c.text);
    std::string message = ErrorMessageOf([&] { LoadRecordedSpace(path); });
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(c.says), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  std::string missing = dir + "/absent.json";
  std::string message = ErrorMessageOf([&] { LoadRecordedSpace(missing); });
  EXPECT_NE(message.find(missing), std::string::npos) << message;
}

}  // namespace
}  // namespace glimpse
