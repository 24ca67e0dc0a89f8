// ReplayTarget: a recorded space as a target — its one task, nothing to build, the recorded
// measurements replayed, the recorded statuses as the validity check; any operator refused.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/replay.h"
#include "replay_test_util.h"

namespace glimpse {
namespace {

using testing::TestDataPath;

std::shared_ptr<const RecordedSpace> Pnpoly() {
  return std::make_shared<const RecordedSpace>(
      LoadRecordedSpace(TestDataPath("pnpoly_small.json")));
}

TEST(ReplayTargetTest, ItsTaskIsTheRecordedOneOnTheRecordedDevice) {
  std::shared_ptr<const RecordedSpace> recorded = Pnpoly();
  const ReplayTarget target(recorded);
  EXPECT_EQ(target.Name(), "replay");
  EXPECT_EQ(target.Device(), recorded->device_name);
  EXPECT_FALSE(target.Device().empty());
  const Task task = target.RecordedTask();
  EXPECT_EQ(task.WorkloadKey(), recorded->MakeTask().WorkloadKey());
  EXPECT_EQ(task.device, recorded->device_name);
  std::vector<std::string> notes;
  EXPECT_EQ(target.DescribeDevice(notes), nullptr);
}

TEST(ReplayTargetTest, ItsRunnerReplaysTheRecordingAndItsCheckerReadsTheStatuses) {
  std::shared_ptr<const RecordedSpace> recorded = Pnpoly();
  ReplayOptions options;
  options.seed = 3;
  const ReplayTarget target(recorded, options);
  const Task task = target.RecordedTask();
  std::unique_ptr<Builder> builder = target.MakeBuilder("");
  std::unique_ptr<Runner> runner = target.MakeRunner(task, 10.0);
  EXPECT_TRUE(runner->IsSimulated());

  // Every recorded entry: the target's builder and runner give what a ReplayRunner gives.
  std::vector<MeasureInput> inputs;
  for (const auto& [dense_index, entry] : recorded->entries) {
    inputs.push_back({&task, recorded->space.FromDenseIndex(dense_index)});
  }
  const std::vector<BuildResult> builds = builder->Build(inputs);
  ASSERT_EQ(builds.size(), inputs.size());
  ReplayRunner direct(recorded, options);
  const std::vector<MeasureResult> got = runner->Run(inputs, builds);
  const std::vector<MeasureResult> want = direct.Run(inputs, builds);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].status, want[i].status) << i;
    EXPECT_EQ(got[i].time_s, want[i].time_s) << i;
    EXPECT_EQ(got[i].cost_s, want[i].cost_s) << i;
  }

  std::shared_ptr<ValidityChecker> checker = target.MakeValidityChecker(task, "");
  std::vector<Config> configs;
  for (const MeasureInput& input : inputs) configs.push_back(input.config);
  const std::vector<ValidityResult> checks = checker->Check(configs);
  ASSERT_EQ(checks.size(), configs.size());
  for (size_t i = 0; i < checks.size(); ++i) EXPECT_EQ(checks[i].valid, want[i].ok()) << i;
}

TEST(ReplayTargetTest, OperatorsAndOtherTasksAreRefusedNamingTheFile) {
  std::shared_ptr<const RecordedSpace> recorded = Pnpoly();
  const ReplayTarget target(recorded);
  try {
    target.MakeTask(ParseOperator("dense:M=1,N=8,K=8"));
    FAIL() << "a replayed space has no operator templates";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(recorded->source_path), std::string::npos)
        << error.what();
  }
  Task other = target.RecordedTask();
  other.description = Json{{"kernel", "another kernel"}};
  EXPECT_THROW(target.MakeRunner(other, 10.0), Error);
  EXPECT_THROW(target.MakeValidityChecker(other, ""), Error);
  EXPECT_THROW(ReplayTarget(nullptr), Error);
}

}  // namespace
}  // namespace glimpse
