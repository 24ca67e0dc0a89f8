// Transfer-learning histories on small hand-made recorded spaces: the held-out device never
// contributes, configurations are mapped by knob name, and those outside the space are skipped;
// holding out an architecture or a vendor also leaves out the held-out device's siblings.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/evaluation.h"

namespace glimpse {
namespace {

// A space over knobs x ∈ xs and y ∈ {10, 20} (in `x_first` order or reversed), every
// configuration recorded ok at `time_s`, except x = 2, y = 20, which failed to compile.
std::shared_ptr<const RecordedSpace> MakeDevice(const std::string& device, double time_s,
                                                std::vector<int64_t> xs, bool x_first) {
  auto recorded = std::make_shared<RecordedSpace>();
  recorded->device_name = device;
  std::vector<KnobValue> x_values(xs.begin(), xs.end());
  Knob x = Knob::Ordered("x", x_values);
  Knob y = Knob::Ordered("y", {int64_t{10}, int64_t{20}});
  if (x_first) {
    recorded->space.AddKnob(x);
    recorded->space.AddKnob(y);
  } else {
    recorded->space.AddKnob(y);
    recorded->space.AddKnob(x);
  }
  for (uint64_t index = 0; index < recorded->space.RawSize(); ++index) {
    Json values = recorded->space.ConfigToJson(recorded->space.FromDenseIndex(index));
    RecordedEntry entry;
    entry.status = MeasureStatus::kOk;
    entry.time_s = time_s;
    entry.compile_time_s = 0.5;
    entry.benchmark_time_s = 0.25;
    if (values["x"] == 2 && values["y"] == 20) entry.status = MeasureStatus::kCompileDevice;
    recorded->entries[index] = entry;
  }
  return recorded;
}

TEST(LeaveOneDeviceOutHistoryTest, ExcludesTheHeldOutDeviceAndMapsByKnobName) {
  const std::vector<std::shared_ptr<const RecordedSpace>> group = {
      MakeDevice("A", 0.001, {1, 2, 3}, true),
      MakeDevice("B", 0.002, {1, 2, 3}, true),
      // Other knob order, and a value (x = 4) the held-out space lacks.
      MakeDevice("C", 0.003, {1, 2, 3, 4}, false),
  };
  TransferHistory history = LeaveOneDeviceOutHistory(group, 0);
  // B: all 6; C: the 6 of its 8 whose x exists in A.
  ASSERT_EQ(history.size(), 12u);
  const ConfigSpace& space = group[0]->space;
  std::set<double> times;
  int failures = 0;
  for (const auto& [config, result] : history) {
    ASSERT_TRUE(space.IsValid(config));
    if (!result.ok()) {
      ++failures;
      EXPECT_EQ(result.status, MeasureStatus::kCompileDevice);
      EXPECT_TRUE(std::isinf(result.time_s));
      // The failure is x = 2, y = 20 in A's space, whichever device's order it came from.
      EXPECT_EQ(space.ConfigToJson(config), (Json{{"x", 2}, {"y", 20}}));
      continue;
    }
    times.insert(result.time_s);
    EXPECT_DOUBLE_EQ(result.cost_s, 0.75);
    EXPECT_TRUE(result.samples_s.empty());
  }
  EXPECT_EQ(failures, 2);
  EXPECT_EQ(times, (std::set<double>{0.002, 0.003}));  // never the held-out 0.001

  // Holding out C: A and B give all their entries, mapped into C's knob order.
  TransferHistory for_c = LeaveOneDeviceOutHistory(group, 2);
  ASSERT_EQ(for_c.size(), 12u);
  for (const auto& [config, result] : for_c) {
    EXPECT_NE(result.time_s, 0.003);
    EXPECT_NE(group[2]->space.ConfigToJson(config)["x"], 4);
  }
  EXPECT_THROW(LeaveOneDeviceOutHistory(group, 3), Error);
}

TEST(LeaveOneDeviceOutHistoryTest, OneDeviceHasNoHistory) {
  EXPECT_TRUE(LeaveOneDeviceOutHistory({MakeDevice("A", 0.001, {1, 2}, true)}, 0).empty());
}

TEST(TransferSourcesTest, ArchitectureAndVendorSplitsLeaveOutTheSiblings) {
  // The recorded files' device names: A100 and RTX 3090 are Ampere, the 2080 Ti Turing; MI250X
  // (CDNA 2) and W6600 (RDNA 2) are AMD's.
  const std::vector<std::shared_ptr<const RecordedSpace>> group = {
      MakeDevice("A100", 0.001, {1, 2}, true), MakeDevice("RTX_3090", 0.002, {1, 2}, true),
      MakeDevice("RTX_2080_Ti", 0.003, {1, 2}, true), MakeDevice("MI250X", 0.004, {1, 2}, true),
      MakeDevice("W6600", 0.005, {1, 2}, true)};
  EXPECT_EQ(TransferSources(group, 0, TransferMode::kOtherDevices),
            (std::vector<size_t>{1, 2, 3, 4}));
  EXPECT_EQ(TransferSources(group, 0, TransferMode::kOtherArchitectures),
            (std::vector<size_t>{2, 3, 4}));
  EXPECT_EQ(TransferSources(group, 0, TransferMode::kOtherVendors), (std::vector<size_t>{3, 4}));
  EXPECT_EQ(TransferSources(group, 3, TransferMode::kOtherArchitectures),
            (std::vector<size_t>{0, 1, 2, 4}));
  EXPECT_EQ(TransferSources(group, 4, TransferMode::kOtherVendors), (std::vector<size_t>{0, 1, 2}));

  // The history holds only the sources' entries: Turing and AMD times, never the 3090's.
  std::set<double> times;
  for (const auto& [config, result] : TransferHistoryFrom(
           group, 0, TransferSources(group, 0, TransferMode::kOtherArchitectures))) {
    if (result.ok()) times.insert(result.time_s);
  }
  EXPECT_EQ(times, (std::set<double>{0.003, 0.004, 0.005}));
  EXPECT_THROW(TransferHistoryFrom(group, 0, {0}), Error);  // the held-out device itself
}

TEST(TransferSourcesTest, UnknownDevicesAndModesAreErrors) {
  const std::vector<std::shared_ptr<const RecordedSpace>> group = {
      MakeDevice("A100", 0.001, {1, 2}, true),
      MakeDevice("Imaginary GPU 9000", 0.002, {1, 2}, true)};
  EXPECT_EQ(TransferSources(group, 0, TransferMode::kOtherDevices), (std::vector<size_t>{1}));
  try {
    TransferSources(group, 0, TransferMode::kOtherArchitectures);
    ADD_FAILURE() << "an unknown device's architecture was guessed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'Imaginary GPU 9000' is not in the GPU table"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(ParseTransferMode("leave-one-vendor-out"), TransferMode::kOtherVendors);
  EXPECT_STREQ(TransferModeName(TransferMode::kOtherArchitectures), "leave-one-architecture-out");
  EXPECT_THROW(ParseTransferMode("leave-one-out"), Error);
}

}  // namespace
}  // namespace glimpse
