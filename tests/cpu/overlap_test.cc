// Overlapping builds with measurements on the CPU: the CPUs are split so that the compiler never
// shares one with a timed kernel, and a tuning run gives the same statuses either way.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cpu_fixtures.h"
#include "glimpse/build_support.h"
#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "glimpse/tuner.h"
#include "glimpse/tuning_loop.h"

namespace glimpse {
namespace {

TEST(CpuSplitTest, TheCompilerGetsAQuarterAndAtLeastOneCpu) {
  CpuSplit two = SplitCpus({0, 1}, 0);
  EXPECT_EQ(two.build, (std::vector<int>{0}));
  EXPECT_EQ(two.measure, (std::vector<int>{1}));

  CpuSplit eight = SplitCpus({0, 1, 2, 3, 8, 9, 10, 11}, 0);
  EXPECT_EQ(eight.build, (std::vector<int>{0, 1}));
  EXPECT_EQ(eight.measure, (std::vector<int>{2, 3, 8, 9, 10, 11}));

  CpuSplit given = SplitCpus({4, 5, 6, 7}, 1);
  EXPECT_EQ(given.build, (std::vector<int>{4, 5, 6}));
  EXPECT_EQ(given.measure, (std::vector<int>{7}));
}

TEST(CpuSplitTest, NoCpuLeftForEitherSideIsAnError) {
  EXPECT_THROW(SplitCpus({0}, 0), Error);
  try {
    SplitCpus({0, 1, 2, 3}, 4);
    FAIL() << "threads = every CPU must be refused";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("give at most 3"), std::string::npos) << error.what();
  }
}

TEST(CpuOverlapTest, TheTargetKeepsTheRunnerOffTheCompilersCpus) {
  const std::vector<int> allowed = process::AllowedCpus();
  if (allowed.size() < 2) GTEST_SKIP() << "needs two CPUs";
  CpuTargetOptions options;
  options.overlap_builds = true;
  const CpuTarget target(options);
  const CpuSplit split = SplitCpus(allowed, 0);
  const Task task = target.MakeTask(ParseOperator("dense:M=4,N=8,K=8"));
  std::unique_ptr<Runner> runner = target.MakeRunner(task, 5.0);
  EXPECT_TRUE(runner->TimesBesideBuilds());
  EXPECT_EQ(dynamic_cast<CpuRunner&>(*runner).cpus(), split.measure);
  const std::string dir = testing::MakeTempDir("glimpse-overlap-target");
  std::unique_ptr<Builder> builder = target.MakeBuilder(dir);
  EXPECT_EQ(builder->WaveSize(), 4 * split.build.size());  // 4 candidates per compiler run
  std::filesystem::remove_all(dir);

  // Without the option every CPU measures, and builds wait for measurements.
  std::unique_ptr<Runner> plain = CpuTarget().MakeRunner(task, 5.0);
  EXPECT_FALSE(plain->TimesBesideBuilds());
  EXPECT_EQ(dynamic_cast<CpuRunner&>(*plain).cpus(), allowed);
}

// Tunes a small dense operator with the grid (fixed order) in batches of 8, waves of 4.
TuneSummary TuneDense(const std::string& dir, bool overlap, const CpuSplit& split) {
  const Task task = MakeCpuTask(ParseOperator("dense:M=8,N=16,K=16,bias=1"));
  CpuBuilderOptions build = testing::FastBuild(dir);
  build.parallel_invocations = 1;
  CpuRunnerOptions run = testing::FastRun();
  if (overlap) {
    build.cpus = split.build;
    run.cpus = split.measure;
    run.builds_elsewhere = true;
  }
  CpuBuilder builder(build);
  CpuRunner runner(run);
  TuneOptions options;
  options.max_measurements = 16;
  options.batch_size = 8;
  options.progress = ProgressMode::kQuiet;
  std::unique_ptr<Tuner> grid = MakeTuner("grid");
  return Tune(task, *grid, builder, runner, nullptr, options);
}

TEST(CpuOverlapTest, OverlappedTuningMeasuresTheSameCandidatesWithTheSameStatuses) {
  const std::vector<int> allowed = process::AllowedCpus();
  if (allowed.size() < 2) GTEST_SKIP() << "needs two CPUs";
  const CpuSplit split = SplitCpus(allowed, 0);
  const std::string dir = testing::MakeTempDir("glimpse-overlap-tune");
  TuneSummary serial = TuneDense(dir + "/serial", false, split);
  TuneSummary overlapped = TuneDense(dir + "/overlap", true, split);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(overlapped.measurements, 16);
  EXPECT_EQ(overlapped.by_status, serial.by_status);
  EXPECT_EQ(overlapped.by_status[MeasureStatus::kOk], 16);
  EXPECT_TRUE(std::isfinite(overlapped.best_time_s));
}

}  // namespace
}  // namespace glimpse
