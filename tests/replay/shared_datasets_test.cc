// Every recorded file of the shared datasets, with its exact counts (the truths of the data set),
// the T1 spaces, and the T4 copies. Skipped when the datasets are not beside the checkout.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include "glimpse/replay.h"
#include "replay_test_util.h"

namespace glimpse {
namespace {

struct Truth {
  const char* file;
  RecordedFormat format;
  int64_t entries, ok, compile, runtime;
  const char* t1;  // the T1 file of the space
};

constexpr auto kKt = RecordedFormat::kKernelTunerCache;
constexpr auto kT4 = RecordedFormat::kT4;

const Truth kTruths[] = {
    {"convolution/RTX_2080_Ti.json.gz", kKt, 6768, 5256, 1426, 86, "convolution"},
    {"convolution/RTX_3060_laptop.json.gz", kKt, 6768, 5220, 1426, 122, "convolution"},
    {"convolution/RTX_3090.json.gz", kKt, 6768, 5220, 1426, 122, "convolution"},
    {"convolution/RTX_Titan.json.gz", kKt, 6768, 5256, 1426, 86, "convolution"},
    {"convolution_milo/A100.json.gz", kKt, 4362, 4201, 6, 155, "convolution_milo"},
    {"convolution_milo/A100_T4.json.gz", kT4, 4362, 4201, 6, 155, "convolution_milo"},
    {"convolution_milo/A4000.json.gz", kKt, 4362, 4201, 6, 155, "convolution_milo"},
    {"convolution_milo/A6000.json.gz", kKt, 4362, 3889, 252, 221, "convolution_milo"},
    {"convolution_milo/MI250X.json.gz", kKt, 4362, 4362, 0, 0, "convolution_milo"},
    {"convolution_milo/W6600.json.gz", kKt, 4362, 4362, 0, 0, "convolution_milo"},
    {"convolution_milo/W7800.json.gz", kKt, 4362, 4246, 116, 0, "convolution_milo"},
    {"convolution_milo/W7800_T4.json.gz", kT4, 4362, 4246, 116, 0, "convolution_milo"},
    {"dedispersion_milo/A100.json.gz", kKt, 11130, 11130, 0, 0, "dedispersion_milo"},
    {"dedispersion_milo/A4000.json.gz", kKt, 11130, 11130, 0, 0, "dedispersion_milo"},
    {"dedispersion_milo/A6000.json.gz", kKt, 11130, 11130, 0, 0, "dedispersion_milo"},
    {"dedispersion_milo/MI250X.json.gz", kKt, 11130, 11130, 0, 0, "dedispersion_milo"},
    {"dedispersion_milo/W6600.json.gz", kKt, 11130, 11130, 0, 0, "dedispersion_milo"},
    {"dedispersion_milo/W7800.json.gz", kKt, 11130, 11130, 0, 0, "dedispersion_milo"},
    {"gemm/RTX_2080_Ti.json.gz", kKt, 17956, 17956, 0, 0, nullptr},
    {"gemm/RTX_3060_laptop.json.gz", kKt, 10000, 10000, 0, 0, nullptr},
    {"gemm/RTX_3090.json.gz", kKt, 17956, 17956, 0, 0, nullptr},
    {"gemm/RTX_Titan.json.gz", kKt, 17956, 17956, 0, 0, nullptr},
    {"pnpoly/RTX_2080_Ti.json.gz", kKt, 4092, 3722, 0, 370, "pnpoly"},
    {"pnpoly/RTX_3060_laptop.json.gz", kKt, 4092, 3774, 0, 318, "pnpoly"},
    {"pnpoly/RTX_3090.json.gz", kKt, 4092, 3774, 0, 318, "pnpoly"},
};

std::string SharedPath(const std::string& name) {
  return testing::SharedDatasetsDir() + "/" + name;
}

#define SKIP_WITHOUT_SHARED_DATASETS()                                                        \
  if (testing::SharedDatasetsDir().empty()) {                                                 \
    GTEST_SKIP() << "shared datasets not found (../shared/datasets/benchmark_hub beside the " \
                    "checkout, or $GLIMPSE_SHARED_DATASETS)";                                 \
  }

TEST(SharedDatasets, EveryFileLoadsWithItsExactCounts) {
  SKIP_WITHOUT_SHARED_DATASETS();
  size_t files_seen = 0;
  for (const auto& folder : std::filesystem::directory_iterator(testing::SharedDatasetsDir())) {
    if (!folder.is_directory()) continue;
    for (const auto& file : std::filesystem::directory_iterator(folder.path())) {
      if (file.path().extension() == ".gz") ++files_seen;
    }
  }
  EXPECT_EQ(files_seen, std::size(kTruths)) << "a recorded file without its truth in this test";

  for (const Truth& truth : kTruths) {
    SCOPED_TRACE(truth.file);
    auto start = std::chrono::steady_clock::now();
    RecordedSpace recorded = LoadRecordedSpace(SharedPath(truth.file));
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("  loaded %-40s %6zu entries in %.3f s\n", truth.file, recorded.entries.size(),
                seconds);
    EXPECT_EQ(recorded.format, truth.format);
    EXPECT_EQ(static_cast<int64_t>(recorded.entries.size()), truth.entries);
    EXPECT_EQ(recorded.outside_restrictions, 0);
    auto counts = recorded.CountByStatus();
    EXPECT_EQ(counts[MeasureStatus::kOk], truth.ok);
    EXPECT_EQ(counts[MeasureStatus::kCompileDevice], truth.compile);
    EXPECT_EQ(counts[MeasureStatus::kRuntimeDevice], truth.runtime);
    EXPECT_EQ(counts[MeasureStatus::kUnknown], 0);
    EXPECT_FALSE(recorded.device_name.empty());
    if (truth.format == kKt) {
      EXPECT_FALSE(recorded.kernel_name.empty());
    }
  }
}

TEST(SharedDatasets, EmptyDeviceNameFallsBackToTheFileName) {
  SKIP_WITHOUT_SHARED_DATASETS();
  RecordedSpace recorded = LoadRecordedSpace(SharedPath("convolution_milo/MI250X.json.gz"));
  EXPECT_EQ(recorded.device_name, "MI250X");
}

TEST(SharedDatasets, T1SpacesHoldExactlyTheRecordedConfigurations) {
  SKIP_WITHOUT_SHARED_DATASETS();
  const std::pair<const char*, uint64_t> spaces[] = {
      {"convolution/RTX_3090.json.gz", 6768},
      {"convolution_milo/A6000.json.gz", 4362},
      {"dedispersion_milo/W6600.json.gz", 11130},
      {"pnpoly/RTX_2080_Ti.json.gz", 4092},
  };
  for (const auto& [file, size] : spaces) {
    SCOPED_TRACE(file);
    std::string name(file);
    ReplayLoadOptions options;
    options.t1_path = SharedPath("t1/" + name.substr(0, name.find('/')) + ".json");
    RecordedSpace recorded = LoadRecordedSpace(SharedPath(file), options);
    EXPECT_EQ(recorded.space.CountValid(), size);
    EXPECT_EQ(recorded.entries.size(), size);
    EXPECT_EQ(recorded.outside_restrictions, 0);
  }
}

TEST(SharedDatasets, T4AndKernelTunerCopiesGiveTheSameEntries) {
  SKIP_WITHOUT_SHARED_DATASETS();
  ReplayLoadOptions options;
  options.t1_path = SharedPath("t1/convolution_milo.json");
  RecordedSpace kt = LoadRecordedSpace(SharedPath("convolution_milo/A100.json.gz"), options);
  RecordedSpace t4 = LoadRecordedSpace(SharedPath("convolution_milo/A100_T4.json.gz"), options);
  EXPECT_EQ(t4.format, RecordedFormat::kT4);
  EXPECT_EQ(t4.device_name, "A100_T4");
  ASSERT_EQ(kt.entries.size(), t4.entries.size());
  for (const auto& [index, entry] : kt.entries) {
    auto other = t4.entries.find(index);
    ASSERT_NE(other, t4.entries.end()) << kt.space.ConfigToString(kt.space.FromDenseIndex(index));
    EXPECT_EQ(other->second.status, entry.status);
    EXPECT_EQ(other->second.samples_s, entry.samples_s);
    EXPECT_DOUBLE_EQ(other->second.compile_time_s, entry.compile_time_s);
    if (entry.status == MeasureStatus::kOk) {
      EXPECT_DOUBLE_EQ(other->second.time_s, entry.time_s);
    }
  }
  // Without a T1 file the T4 knobs are inferred: sorted distinct values, in the order of the
  // first configuration; the same as the cache's tune_params here.
  RecordedSpace inferred = LoadRecordedSpace(SharedPath("convolution_milo/A100_T4.json.gz"));
  RecordedSpace listed = LoadRecordedSpace(SharedPath("convolution_milo/A100.json.gz"));
  EXPECT_EQ(inferred.space.Fingerprint(), listed.space.Fingerprint());
}

TEST(SharedDatasets, SameKernelOnTwoDevicesIsOneWorkload) {
  SKIP_WITHOUT_SHARED_DATASETS();
  RecordedSpace a100 = LoadRecordedSpace(SharedPath("convolution_milo/A100.json.gz"));
  RecordedSpace w6600 = LoadRecordedSpace(SharedPath("convolution_milo/W6600.json.gz"));
  Task a = a100.MakeTask();
  Task b = w6600.MakeTask();
  EXPECT_EQ(a.WorkloadKey(), b.WorkloadKey());
  EXPECT_NE(a.device, b.device);
  EXPECT_EQ(a.name, "convolution_kernel [4096,4096]");
}

}  // namespace
}  // namespace glimpse
