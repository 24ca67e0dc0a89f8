// Writing Kernel Tuner caches and T4 results, reading them back, and recorded spaces as records.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "glimpse/replay.h"
#include "replay_test_util.h"

namespace glimpse {
namespace {

using testing::ErrorMessageOf;
using testing::MakeTempDir;
using testing::RepoDataPath;
using testing::TestDataPath;
using testing::WriteTextFile;

void ExpectSameEntries(const RecordedSpace& expected, const RecordedSpace& actual) {
  ASSERT_EQ(actual.entries.size(), expected.entries.size());
  for (const auto& [index, entry] : expected.entries) {
    auto found = actual.entries.find(index);
    ASSERT_NE(found, actual.entries.end());
    const RecordedEntry& other = found->second;
    EXPECT_EQ(other.status, entry.status);
    if (entry.status == MeasureStatus::kOk) {
      EXPECT_NEAR(other.time_s, entry.time_s, 1e-12 * entry.time_s);
    }
    ASSERT_EQ(other.samples_s.size(), entry.samples_s.size());
    for (size_t i = 0; i < entry.samples_s.size(); ++i) {
      EXPECT_NEAR(other.samples_s[i], entry.samples_s[i], 1e-12 * entry.samples_s[i]);
    }
    EXPECT_NEAR(other.compile_time_s, entry.compile_time_s, 1e-12);
    EXPECT_NEAR(other.benchmark_time_s, entry.benchmark_time_s, 1e-12);
  }
}

TEST(RecordsFromRecordedSpace, OneImportRecordPerEntry) {
  RecordedSpace recorded = LoadRecordedSpace(TestDataPath("pnpoly_small.json"));
  std::vector<TuningRecord> records = RecordsFromRecordedSpace(recorded);
  ASSERT_EQ(records.size(), recorded.entries.size());
  const std::string key = recorded.MakeTask().WorkloadKey();
  int failed = 0;
  for (const TuningRecord& record : records) {
    Config config = recorded.space.ConfigFromJson(record.config);
    const RecordedEntry& entry = recorded.entries.at(recorded.space.ToDenseIndex(config));
    EXPECT_EQ(record.workload_key, key);
    EXPECT_EQ(record.device, "NVIDIA GeForce RTX 3090");
    EXPECT_EQ(record.strategy, "import");
    EXPECT_EQ(record.config_hash, HashToHex(recorded.space.Hash(config)));
    EXPECT_EQ(record.status, entry.status);
    EXPECT_EQ(record.samples_s, entry.samples_s);
    EXPECT_DOUBLE_EQ(record.cost_s, entry.compile_time_s + entry.benchmark_time_s);
    if (record.status == MeasureStatus::kOk) {
      EXPECT_EQ(record.time_s, entry.time_s);
      EXPECT_TRUE(record.error.empty());
    } else {
      ++failed;
      EXPECT_TRUE(std::isinf(record.time_s));
      EXPECT_EQ(record.error, "recorded as RuntimeFailedConfig");
    }
  }
  EXPECT_EQ(failed, 1);
}

TEST(MakeTask, NamesTheKernelAndLeavesPathAndDeviceOutOfTheKey) {
  RecordedSpace recorded = LoadRecordedSpace(TestDataPath("pnpoly_small.json"));
  Task task = recorded.MakeTask();
  EXPECT_EQ(task.name, "cn_pnpoly 20000000");
  EXPECT_EQ(task.device, "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(task.description["kernel"], "cn_pnpoly");
  EXPECT_EQ(task.description["problem_size"], Json(20000000));
  EXPECT_EQ(task.description.dump().find("pnpoly_small"), std::string::npos);
  EXPECT_EQ(task.description.dump().find("3090"), std::string::npos);

  ReplayLoadOptions options;
  options.device_name = "another GPU";
  RecordedSpace elsewhere = LoadRecordedSpace(TestDataPath("pnpoly_cut_after_comma.json"), options);
  EXPECT_EQ(elsewhere.MakeTask().WorkloadKey(), task.WorkloadKey());
  EXPECT_EQ(elsewhere.MakeTask().device, "another GPU");
}

TEST(WriteKernelTunerCache, RoundTripsTheShippedFile) {
  const std::string source = RepoDataPath("recorded/convolution_milo/A100.json.gz");
  RecordedSpace recorded = LoadRecordedSpace(source);
  std::ostringstream out;
  WriteKernelTunerCache(recorded.MakeTask(), RecordsFromRecordedSpace(recorded), out);
  std::string path = WriteTextFile(MakeTempDir("glimpse-write"), "A100.json", out.str());
  RecordedSpace back = LoadRecordedSpace(path);
  EXPECT_EQ(back.format, RecordedFormat::kKernelTunerCache);
  EXPECT_EQ(back.device_name, recorded.device_name);
  EXPECT_EQ(back.kernel_name, recorded.kernel_name);
  EXPECT_EQ(back.problem_size, recorded.problem_size);
  EXPECT_EQ(back.space.Fingerprint(), recorded.space.Fingerprint());
  EXPECT_EQ(back.MakeTask().WorkloadKey(), recorded.MakeTask().WorkloadKey());
  ExpectSameEntries(recorded, back);
  EXPECT_EQ(back.CountByStatus(), recorded.CountByStatus());
}

TEST(WriteT4Results, RoundTripsThroughTheT1Space) {
  ReplayLoadOptions options;
  options.t1_path = RepoDataPath("recorded/t1/pnpoly.json");
  RecordedSpace recorded = LoadRecordedSpace(TestDataPath("pnpoly_small.json"), options);
  std::ostringstream out;
  WriteT4Results(recorded.MakeTask(), RecordsFromRecordedSpace(recorded), out);
  std::string path = WriteTextFile(MakeTempDir("glimpse-write"), "small_T4.json", out.str());
  RecordedSpace back = LoadRecordedSpace(path, options);
  EXPECT_EQ(back.format, RecordedFormat::kT4);
  EXPECT_EQ(back.device_name, "small_T4");  // T4 files carry no device name
  ExpectSameEntries(recorded, back);
}

// One record per status on a one-knob space; what each format reads back.
TEST(Writers, StatusesMapAsDocumented) {
  Task task;
  task.name = "statuses";
  task.device = "dev";
  task.description = {{"kernel", "statuses"}, {"problem_size", nullptr}};
  std::vector<KnobValue> values;
  for (int64_t i = 0; i < kNumMeasureStatuses; ++i) values.emplace_back(i);
  task.space.AddKnob(Knob::Ordered("s", values));
  std::vector<TuningRecord> records;
  for (int i = 0; i < kNumMeasureStatuses; ++i) {
    TuningRecord record;
    record.device = "dev";
    record.config = {{"s", i}};
    record.status = static_cast<MeasureStatus>(i);
    record.time_s = i == 0 ? 0.004 : std::numeric_limits<double>::infinity();
    if (i == 0) record.samples_s = {0.003, 0.005};
    record.compile_time_s = 0.5 + i;
    record.cost_s = 0.75 + i;
    records.push_back(record);
  }
  using S = MeasureStatus;
  const S kt_expected[] = {S::kOk,
                           S::kUnknown,
                           S::kCompileDevice,
                           S::kCompileDevice,
                           S::kRuntimeDevice,
                           S::kRuntimeDevice,
                           S::kCompileDevice,
                           S::kRuntimeDevice,
                           S::kUnknown};
  const S t4_expected[] = {
      S::kOk,          S::kInstantiation, S::kCompileDevice, S::kCompileDevice, S::kRuntimeDevice,
      S::kWrongAnswer, S::kRunTimeout,    S::kRunTimeout,    S::kRuntimeDevice};
  std::string dir = MakeTempDir("glimpse-statuses");
  std::ostringstream kt_out;
  std::ostringstream t4_out;
  WriteKernelTunerCache(task, records, kt_out);
  WriteT4Results(task, records, t4_out);
  RecordedSpace kt = LoadRecordedSpace(WriteTextFile(dir, "kt.json", kt_out.str()));
  RecordedSpace t4 = LoadRecordedSpace(WriteTextFile(dir, "t4.json", t4_out.str()));
  for (int i = 0; i < kNumMeasureStatuses; ++i) {
    SCOPED_TRACE(StatusName(static_cast<MeasureStatus>(i)));
    Config config = kt.space.ConfigFromJson({{"s", i}});
    const RecordedEntry& kt_entry = kt.entries.at(kt.space.ToDenseIndex(config));
    EXPECT_EQ(kt_entry.status, kt_expected[i]);
    EXPECT_NEAR(kt_entry.compile_time_s, 0.5 + i, 1e-12);
    EXPECT_NEAR(kt_entry.benchmark_time_s, 0.25, 1e-12);
    Config t4_config = t4.space.ConfigFromJson({{"s", i}});
    const RecordedEntry& t4_entry = t4.entries.at(t4.space.ToDenseIndex(t4_config));
    EXPECT_EQ(t4_entry.status, t4_expected[i]);
    EXPECT_NEAR(t4_entry.benchmark_time_s, 0.25, 1e-12);
  }
  Config ok = kt.space.ConfigFromJson({{"s", 0}});
  EXPECT_NEAR(kt.entries.at(kt.space.ToDenseIndex(ok)).time_s, 0.004, 1e-15);
}

TEST(Writers, SplitKnobsGoToCachesAsTextAndNotToT4Results) {
  Task task;
  task.name = "split";
  task.space.AddKnob(Knob::Split("tile", 16, 2));
  std::ostringstream out;
  WriteKernelTunerCache(task, {}, out);
  Json document = Json::parse(out.str());
  // Every factorisation of 16 into 2 parts, in the knob's order, as "AxB".
  Json expected = Json::array();
  for (const KnobValue& value : task.space.knobs()[0].values()) {
    const auto& factors = std::get<std::vector<int64_t>>(value);
    expected.push_back(std::to_string(factors[0]) + "x" + std::to_string(factors[1]));
  }
  EXPECT_EQ(expected.size(), 5u);  // 1x16, 2x8, 4x4, 8x2, 16x1
  EXPECT_EQ(document["tune_params"]["tile"], expected);
  std::string message = ErrorMessageOf([&] { WriteT4Results(task, {}, out); });
  EXPECT_NE(message.find("'tile' is a split knob"), std::string::npos) << message;
}

TEST(Writers, PermutationKnobsCannotBeWritten) {
  Task task;
  task.name = "order";
  task.space.AddKnob(Knob::Permutation("reorder", 3));
  std::ostringstream out;
  std::string message = ErrorMessageOf([&] { WriteKernelTunerCache(task, {}, out); });
  EXPECT_NE(message.find("'reorder' is a permutation knob"), std::string::npos) << message;
}

// A space like the GPU templates' (split knobs beside ordered ones) written as a cache and read
// back: the split knobs become categorical knobs of "AxBxC" strings, every entry keeps its
// status and times, and replay measures a configuration at its recorded time.
TEST(Writers, SplitKnobCacheRoundTripsIntoAReplayableSpace) {
  Task task;
  task.name = "gpu-like";
  task.device = "NVIDIA H100 80GB HBM3";
  task.description = {{"op", "dense"}};
  task.space.AddKnob(Knob::Split("tile_m", 8, 3));
  task.space.AddKnob(Knob::Ordered("unroll", {int64_t{0}, int64_t{512}}));
  const std::vector<std::vector<int64_t>> tiles = {{1, 2, 4}, {8, 1, 1}, {2, 2, 2}};
  std::vector<TuningRecord> records;
  for (size_t i = 0; i < tiles.size(); ++i) {
    TuningRecord record;
    record.device = task.device;
    record.config = {{"tile_m", tiles[i]}, {"unroll", 512}};
    record.status = i == 2 ? MeasureStatus::kCompileDevice : MeasureStatus::kOk;
    record.time_s = i == 2 ? std::numeric_limits<double>::infinity() : 0.001 * (i + 1);
    if (i != 2) record.samples_s = {0.001 * (i + 1), 0.001 * (i + 1)};
    record.compile_time_s = 0.25;
    record.cost_s = 0.5;
    records.push_back(record);
  }
  std::ostringstream out;
  WriteKernelTunerCache(task, records, out);
  Json document = Json::parse(out.str());
  EXPECT_TRUE(document["cache"].contains("1x2x4,512")) << out.str();

  RecordedSpace back =
      LoadRecordedSpace(WriteTextFile(MakeTempDir("glimpse-split"), "H100.json", out.str()));
  EXPECT_EQ(back.device_name, task.device);
  ASSERT_EQ(back.space.knobs().size(), 2u);
  const Knob& tile = back.space.knobs()[0];
  EXPECT_EQ(tile.name(), "tile_m");
  EXPECT_EQ(tile.kind(), KnobKind::kCategorical);
  EXPECT_EQ(tile.values().size(), task.space.knobs()[0].values().size());
  EXPECT_EQ(back.space.knobs()[1].kind(), KnobKind::kOrdered);
  ASSERT_EQ(back.entries.size(), 3u);

  Task replayed = back.MakeTask();
  ReplayRunner runner(std::make_shared<RecordedSpace>(back));
  std::vector<MeasureInput> inputs;
  for (const char* text : {"1x2x4", "8x1x1", "2x2x2"}) {
    inputs.push_back({&replayed, back.space.ConfigFromJson({{"tile_m", text}, {"unroll", 512}})});
  }
  std::vector<MeasureResult> results = runner.Run(inputs, std::vector<BuildResult>(3));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, MeasureStatus::kOk);
  EXPECT_NEAR(results[0].time_s, 0.001, 1e-15);
  EXPECT_EQ(results[1].status, MeasureStatus::kOk);
  EXPECT_NEAR(results[1].time_s, 0.002, 1e-15);
  EXPECT_EQ(results[2].status, MeasureStatus::kCompileDevice);
  EXPECT_NEAR(results[2].compile_time_s, 0.25, 1e-12);
}

TEST(Writers, ARecordedConfigurationIsWrittenOnceFastestFirst) {
  Task task;
  task.name = "dup";
  task.description = {{"kernel", "dup"}, {"problem_size", nullptr}};
  task.space.AddKnob(Knob::Ordered("a", {int64_t{1}, int64_t{2}}));
  TuningRecord slow;
  slow.config = {{"a", 1}};
  slow.status = MeasureStatus::kOk;
  slow.time_s = 0.002;
  TuningRecord fast = slow;
  fast.time_s = 0.001;
  TuningRecord failed = slow;
  failed.status = MeasureStatus::kRuntimeDevice;
  std::ostringstream out;
  WriteKernelTunerCache(task, {slow, fast, failed}, out);
  RecordedSpace back =
      LoadRecordedSpace(WriteTextFile(MakeTempDir("glimpse-dup"), "dup.json", out.str()));
  ASSERT_EQ(back.entries.size(), 1u);
  EXPECT_EQ(back.entries.begin()->second.status, MeasureStatus::kOk);
  EXPECT_NEAR(back.entries.begin()->second.time_s, 0.001, 1e-15);
}

}  // namespace
}  // namespace glimpse
