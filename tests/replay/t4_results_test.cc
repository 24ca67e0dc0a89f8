// T4 result files: inferred knobs, statuses, times, and the time unit.
#include <gtest/gtest.h>

#include <string>

#include "glimpse/replay.h"
#include "replay_test_util.h"

namespace glimpse {
namespace {

using testing::ErrorMessageOf;
using testing::MakeTempDir;
using testing::WriteTextFile;

std::string T4Text(const std::string& unit) {
  return R"({"metadata": {"timeunit": ")" + unit + R"("}, "schema_version": "1.0.0",
    "results": [
      {"configuration": {"y": 8, "x": "b"}, "invalidity": "correct",
       "times": {"compilation": 100, "benchmark": 20, "runtimes": [1.0, 2.0, 6.0]},
       "measurements": [{"name": "time", "value": 2.5, "unit": ""}]},
      {"configuration": {"y": 2, "x": "a"}, "invalidity": "correct",
       "times": {"compilation": 50, "runtimes": [4.0, 8.0]}, "measurements": []},
      {"configuration": {"y": 4, "x": "b"}, "invalidity": "compile",
       "times": {"compilation": 70}},
      {"configuration": {"y": 8, "x": "a"}, "invalidity": "runtime",
       "times": {"compilation": 10}}]})";
}

TEST(T4Results, InfersKnobsAndReadsEntries) {
  std::string path = WriteTextFile(MakeTempDir("glimpse-t4"), "Some_GPU_T4.json", T4Text("ms"));
  RecordedSpace recorded = LoadRecordedSpace(path);
  EXPECT_EQ(recorded.format, RecordedFormat::kT4);
  EXPECT_EQ(recorded.device_name, "Some_GPU_T4");
  EXPECT_TRUE(recorded.kernel_name.empty());
  EXPECT_EQ(recorded.MakeTask().name, "Some_GPU_T4");
  // Parameter order of the first configuration; sorted distinct values.
  ASSERT_EQ(recorded.space.NumKnobs(), 2u);
  EXPECT_EQ(recorded.space.knobs()[0].name(), "y");
  EXPECT_EQ(recorded.space.knobs()[0].kind(), KnobKind::kOrdered);
  EXPECT_EQ(std::get<int64_t>(recorded.space.knobs()[0].ValueAt(0)), 2);
  EXPECT_EQ(std::get<int64_t>(recorded.space.knobs()[0].ValueAt(2)), 8);
  EXPECT_EQ(recorded.space.knobs()[1].kind(), KnobKind::kCategorical);
  EXPECT_EQ(std::get<std::string>(recorded.space.knobs()[1].ValueAt(0)), "a");

  auto entry = [&](int y, const char* x) {
    return recorded.entries.at(
        recorded.space.ToDenseIndex(recorded.space.ConfigFromJson({{"y", y}, {"x", x}})));
  };
  RecordedEntry measured = entry(8, "b");
  EXPECT_EQ(measured.status, MeasureStatus::kOk);
  EXPECT_DOUBLE_EQ(measured.time_s, 2.5e-3);  // the "time" measurement, not the mean
  EXPECT_EQ(measured.samples_s, (std::vector<double>{1e-3, 2e-3, 6e-3}));
  EXPECT_DOUBLE_EQ(measured.compile_time_s, 0.1);
  EXPECT_DOUBLE_EQ(measured.benchmark_time_s, 0.02);
  RecordedEntry averaged = entry(2, "a");
  EXPECT_DOUBLE_EQ(averaged.time_s, 6e-3);  // no measurement: mean of the runtimes
  EXPECT_EQ(averaged.benchmark_time_s, 0.0);
  EXPECT_EQ(entry(4, "b").status, MeasureStatus::kCompileDevice);
  EXPECT_EQ(entry(8, "a").status, MeasureStatus::kRuntimeDevice);
  EXPECT_DOUBLE_EQ(recorded.Best()->second.time_s, 2.5e-3);
}

TEST(T4Results, AcceptsTheMillisecondSpellingsOnly) {
  std::string dir = MakeTempDir("glimpse-t4-unit");
  for (const char* unit : {"miliseconds", "milliseconds", "ms"}) {
    EXPECT_EQ(LoadRecordedSpace(WriteTextFile(dir, "ok.json", T4Text(unit))).entries.size(), 4u);
  }
  std::string path = WriteTextFile(dir, "seconds.json", T4Text("seconds"));
  std::string message = ErrorMessageOf([&] { LoadRecordedSpace(path); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("'seconds'"), std::string::npos) << message;
}

TEST(T4Results, MalformedResultsNameTheirPosition) {
  std::string dir = MakeTempDir("glimpse-t4-bad");
  std::string path = WriteTextFile(dir, "bad.json", R"({"results": [
      {"configuration": {"a": 1}, "invalidity": "correct", "times": {"runtimes": [1.0]}},
      {"configuration": {"a": 2}}]})");
  std::string message = ErrorMessageOf([&] { LoadRecordedSpace(path); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("results[1]"), std::string::npos) << message;
  EXPECT_NE(message.find("invalidity"), std::string::npos) << message;
}

}  // namespace
}  // namespace glimpse
