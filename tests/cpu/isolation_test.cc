// Failures are data: compiler errors and timeouts in the builder; crashing, hanging and wrong
// kernels in the runner, while a tuning run with a database goes on.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cpu_fixtures.h"
#include "glimpse/cpu.h"
#include "glimpse/database.h"
#include "glimpse/tuner.h"
#include "glimpse/tuning_loop.h"

namespace glimpse {
namespace {

enum class Plant { kNone, kCrash, kHang, kWrong, kKilled };

std::string PlantedSource(Plant plant, const Task& task, const Config& config,
                          const std::string& symbol) {
  const std::string signature =
      "extern \"C\" void " + symbol + "(const float* const* inputs, float* output)";
  switch (plant) {
    case Plant::kCrash:
      return signature + " { volatile float* p = nullptr; *p = inputs[0][0]; }\n";
    case Plant::kHang:
      return signature + " { for (;;) asm volatile(\"\"); }\n";
    case Plant::kKilled:
      // What the out-of-memory killer does to the worker: SIGKILL, from outside.
      return "#include <signal.h>\n#include <unistd.h>\n" + signature +
             " { kill(getpid(), SIGKILL); }\n";
    case Plant::kWrong:
      // The real kernel, then one output element off by one.
      return GenerateCpuKernel(task, config, symbol + "_real") + signature + " { " + symbol +
             "_real(inputs, output); output[0] += 1.0f; }\n";
    case Plant::kNone:
      break;
  }
  return GenerateCpuKernel(task, config, symbol);
}

// Builds like CpuBuilder, except that the n-th candidate it sees gets the planted source.
class PlantingBuilder : public Builder {
 public:
  PlantingBuilder(CpuBuilderOptions options, std::map<int, Plant> plants)
      : inner_(std::move(options)), plants_(std::move(plants)) {}

  std::vector<BuildResult> Build(const std::vector<MeasureInput>& inputs) override {
    std::vector<KernelSource> sources;
    for (const MeasureInput& input : inputs) {
      std::string symbol = "planted_" + std::to_string(seen_);
      auto it = plants_.find(seen_++);
      Plant plant = it == plants_.end() ? Plant::kNone : it->second;
      sources.push_back({PlantedSource(plant, *input.task, input.config, symbol), symbol});
    }
    return inner_.BuildSources(sources);
  }

 private:
  CpuBuilder inner_;
  std::map<int, Plant> plants_;
  int seen_ = 0;
};

// `measurements` in batches of 4, seed 3, no progress output.
TuneOptions QuietRandomRun(int64_t measurements) {
  TuneOptions options;
  options.max_measurements = measurements;
  options.batch_size = 4;
  options.seed = 3;
  options.progress = ProgressMode::kQuiet;
  return options;
}

class IsolationTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("glimpse-cpu-isolation"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(IsolationTest, CrashHangAndWrongKernelsAreStatusesAndTheRunGoesOn) {
  Task task = MakeCpuTask(ParseOperator("dense:M=4,N=8,K=8,bias=1"));
  PlantingBuilder builder(testing::FastBuild(dir_ + "/build"),
                          {{1, Plant::kCrash}, {2, Plant::kHang}, {4, Plant::kWrong}});
  CpuRunnerOptions run_options = testing::FastRun();
  run_options.timeout_s = 1.5;
  CpuRunner runner(run_options);
  Database database(dir_ + "/tuning.db");
  std::unique_ptr<Tuner> tuner = MakeTuner("random");
  TuneSummary summary =
      Tune(task, *tuner, builder, runner, &database, QuietRandomRun(/*measurements=*/8));

  EXPECT_EQ(summary.measurements, 8);
  EXPECT_EQ(summary.by_status[MeasureStatus::kRuntimeDevice], 1);
  EXPECT_EQ(summary.by_status[MeasureStatus::kRunTimeout], 1);
  EXPECT_EQ(summary.by_status[MeasureStatus::kWrongAnswer], 1);
  EXPECT_EQ(summary.by_status[MeasureStatus::kOk], 5);
  EXPECT_EQ(summary.failed, 3);
  ASSERT_TRUE(summary.best_config.has_value());
  // The first worker, one after the crash, one after the hang.
  EXPECT_EQ(runner.workers_started(), 3);

  std::vector<TuningRecord> records = database.Records(task.WorkloadKey());
  ASSERT_EQ(records.size(), 8u);
  std::map<MeasureStatus, int64_t> stored;
  for (const TuningRecord& record : records) {
    ++stored[record.status];
    if (record.status == MeasureStatus::kOk) {
      EXPECT_FALSE(record.samples_s.empty());
    } else {
      EXPECT_FALSE(record.error.empty()) << StatusName(record.status);
    }
  }
  for (const auto& [status, count] : summary.by_status) {
    EXPECT_EQ(stored[status], count) << StatusName(status);
  }
  std::vector<TuningRecord> best = database.Best(task.WorkloadKey(), task.device, 1);
  ASSERT_EQ(best.size(), 1u);
  EXPECT_DOUBLE_EQ(best[0].time_s, summary.best_time_s);
}

TEST_F(IsolationTest, AWorkerKilledFromOutsideIsAFailedCandidateAndTheRunGoesOn) {
  Task task = MakeCpuTask(ParseOperator("dense:M=4,N=8,K=8,bias=1"));
  PlantingBuilder builder(testing::FastBuild(dir_ + "/build"), {{1, Plant::kKilled}});
  CpuRunner runner(testing::FastRun());
  Database database(dir_ + "/tuning.db");
  std::unique_ptr<Tuner> tuner = MakeTuner("random");
  TuneSummary summary =
      Tune(task, *tuner, builder, runner, &database, QuietRandomRun(/*measurements=*/4));

  EXPECT_EQ(summary.by_status[MeasureStatus::kRuntimeDevice], 1);
  EXPECT_EQ(summary.by_status[MeasureStatus::kOk], 3);
  EXPECT_EQ(runner.workers_started(), 2);  // a new worker for the candidates after it
  std::vector<TuningRecord> records = database.Records(task.WorkloadKey());
  ASSERT_EQ(records.size(), 4u);
  ASSERT_EQ(records[1].status, MeasureStatus::kRuntimeDevice);
  EXPECT_NE(records[1].error.find("signal 9"), std::string::npos) << records[1].error;
  EXPECT_NE(records[1].error.find("out-of-memory killer"), std::string::npos) << records[1].error;
}

TEST_F(IsolationTest, CompilerErrorsAreAttributedToTheirCandidate) {
  CpuBuilder builder(testing::FastBuild(dir_));
  const std::string good =
      "extern \"C\" void good(const float* const* inputs, float* output) { output[0] = 1; }\n";
  const std::string bad = "extern \"C\" void bad(const float* const*, float*) { nonsense; }\n";
  Generated<KernelSource> refused;
  refused.status = MeasureStatus::kInstantiation;
  refused.error = "refused by the template";
  std::vector<BuildResult> results = builder.BuildGenerated(
      {{MeasureStatus::kOk, "", {good, "good"}}, {MeasureStatus::kOk, "", {bad, "bad"}}, refused});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, MeasureStatus::kOk) << results[0].error;
  EXPECT_NE(results[0].artifact.find(".so:good"), std::string::npos);
  EXPECT_EQ(results[1].status, MeasureStatus::kCompileHost);
  EXPECT_NE(results[1].error.find("nonsense"), std::string::npos) << results[1].error;
  EXPECT_EQ(results[2].status, MeasureStatus::kInstantiation);
  EXPECT_EQ(results[2].error, "refused by the template");
}

TEST_F(IsolationTest, ACompilerThatCannotBeStartedFailsTheBatchNotItsCandidates) {
  CpuBuilderOptions options = testing::FastBuild(dir_);
  options.compiler = dir_ + "/no-such-compiler";
  CpuBuilder builder(options);
  try {
    builder.BuildSources({{"int x;", "x"}, {"int y;", "y"}});
    FAIL() << "a missing compiler was recorded as candidates' failures";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cannot run the compiler '" + options.compiler + "'"), std::string::npos)
        << message;
    EXPECT_NE(message.find("nothing of this batch was recorded"), std::string::npos) << message;
  }
}

TEST_F(IsolationTest, ACompilerThatRunsTooLongIsKilled) {
  CpuBuilderOptions options = testing::FastBuild(dir_);
  // A "compiler" that never finishes, and whose real work runs in a grandchild (as cc1plus does
  // under the c++ driver), so that only a kill of the whole process group stops it.
  options.compiler = "sh";
  options.flags = {"-c", "sleep 30; exit 0", "sh"};
  options.timeout_s = 0.3;
  CpuBuilder builder(options);
  auto start = std::chrono::steady_clock::now();
  std::vector<BuildResult> results = builder.BuildSources({{"int x;", "x"}});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, MeasureStatus::kBuildTimeout);
  EXPECT_LT(seconds, 5.0);
}

TEST_F(IsolationTest, FailedBuildsPassThroughTheRunner) {
  Task task = MakeCpuTask(ParseOperator("dense:M=2,N=2,K=2"));
  CpuRunner runner(testing::FastRun());
  BuildResult failed;
  failed.status = MeasureStatus::kCompileHost;
  failed.error = "boom";
  failed.compile_time_s = 0.25;
  std::vector<MeasureResult> results = runner.Run({{&task, Config{}}}, {failed});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, MeasureStatus::kCompileHost);
  EXPECT_EQ(results[0].error, "boom");
  EXPECT_DOUBLE_EQ(results[0].compile_time_s, 0.25);
  EXPECT_EQ(runner.workers_started(), 0);
}

}  // namespace
}  // namespace glimpse
