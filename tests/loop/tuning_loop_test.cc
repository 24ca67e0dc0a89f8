#include "glimpse/tuning_loop.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "glimpse/error.h"
#include "tuner/synthetic.h"

namespace glimpse {
namespace {

using testing::MakeTask;
using testing::SyntheticRunner;

TuneOptions Quiet(int64_t budget, int batch = 16) {
  TuneOptions options;
  options.max_measurements = budget;
  options.batch_size = batch;
  options.progress = ProgressMode::kQuiet;
  return options;
}

void ExpectMonotoneTrajectory(const TuneSummary& summary) {
  ASSERT_EQ(static_cast<int64_t>(summary.trajectory.size()), summary.measurements);
  for (size_t i = 0; i < summary.trajectory.size(); ++i) {
    EXPECT_EQ(summary.trajectory[i].measurement, static_cast<int64_t>(i) + 1);
    if (i > 0) {
      EXPECT_LE(summary.trajectory[i].best_time_s, summary.trajectory[i - 1].best_time_s);
      EXPECT_GE(summary.trajectory[i].tuning_time_s, summary.trajectory[i - 1].tuning_time_s);
    }
  }
  if (!summary.trajectory.empty()) {
    EXPECT_EQ(summary.trajectory.back().best_time_s, summary.best_time_s);
  }
}

TEST(TuningLoop, MeasurementBudgetIsExact) {
  Task task = MakeTask(testing::GridSpace(4, 8));
  SyntheticRunner runner(task.space, {1, 2, 3, 4}, /*fail_every=*/7);
  NullBuilder builder;
  for (const char* name : {"random", "grid", "ga", "sa"}) {
    std::unique_ptr<Tuner> tuner = MakeTuner(name);
    int64_t before = runner.runs();
    TuneSummary summary = Tune(task, *tuner, builder, runner, nullptr, Quiet(37));
    EXPECT_EQ(summary.measurements, 37) << name;
    EXPECT_EQ(runner.runs() - before, 37) << name;
    EXPECT_EQ(summary.resumed, 0);
    EXPECT_EQ(summary.stop_reason, "measurement budget");
    EXPECT_DOUBLE_EQ(summary.tuning_time_s, 37 * 0.5);
    EXPECT_GE(summary.tuner_s, 0.0);
    EXPECT_LE(summary.tuner_s, summary.elapsed_s);
    ExpectMonotoneTrajectory(summary);
    ASSERT_TRUE(summary.best_config.has_value());
    EXPECT_DOUBLE_EQ(runner.TimeOf(*summary.best_config), summary.best_time_s);
  }
}

TEST(TuningLoop, SameSeedSameRun) {
  Task task = MakeTask(testing::GridSpace(4, 8));
  SyntheticRunner runner(task.space, {1, 2, 3, 4});
  NullBuilder builder;
  TuneOptions options = Quiet(100, 10);
  options.seed = 9;
  std::unique_ptr<Tuner> first = MakeTuner("ga", {{"population", 20}});
  std::unique_ptr<Tuner> second = MakeTuner("ga", {{"population", 20}});
  TuneSummary a = Tune(task, *first, builder, runner, nullptr, options);
  TuneSummary b = Tune(task, *second, builder, runner, nullptr, options);
  ASSERT_EQ(a.trajectory.size(), b.trajectory.size());
  for (size_t i = 0; i < a.trajectory.size(); ++i) {
    EXPECT_EQ(a.trajectory[i].best_time_s, b.trajectory[i].best_time_s);
  }
  EXPECT_EQ(a.best_config, b.best_config);
}

TEST(TuningLoop, EarlyStoppingAfterMeasurementsWithoutImprovement) {
  // The grid walks dense-index order and the optimum is the very first configuration, so nothing
  // improves after measurement 1: the loop stops at the first round boundary at or past 1 + 10.
  Task task = MakeTask(testing::GridSpace(3, 8));
  SyntheticRunner runner(task.space, {0, 0, 0});
  NullBuilder builder;
  std::unique_ptr<Tuner> tuner = MakeGridTuner();
  TuneOptions options = Quiet(400, 4);
  options.early_stopping = 10;
  TuneSummary summary = Tune(task, *tuner, builder, runner, nullptr, options);
  EXPECT_EQ(summary.stop_reason, "early stopping");
  EXPECT_EQ(summary.measurements, 12);
  EXPECT_DOUBLE_EQ(summary.best_time_s, SyntheticRunner::kBase);
}

TEST(TuningLoop, SimulatedTimeBudgetOvershootsByAtMostOneBatch) {
  Task task = MakeTask(testing::GridSpace(4, 8));
  SyntheticRunner runner(task.space, {1, 2, 3, 4}, 0, /*simulated=*/true, /*cost_s=*/0.5);
  NullBuilder builder;
  std::unique_ptr<Tuner> tuner = MakeRandomTuner();
  TuneOptions options = Quiet(0, 4);  // time budget only
  options.max_seconds = 9.0;
  TuneSummary summary = Tune(task, *tuner, builder, runner, nullptr, options);
  EXPECT_EQ(summary.stop_reason, "time budget");
  // Rounds of 4 × 0.5 s: 8 s after four rounds (go on), 10 s after five (stop).
  EXPECT_EQ(summary.measurements, 20);
  EXPECT_DOUBLE_EQ(summary.tuning_time_s, 10.0);
  EXPECT_DOUBLE_EQ(summary.trajectory.back().tuning_time_s, 10.0);
  EXPECT_DOUBLE_EQ(summary.trajectory.front().tuning_time_s, 0.5);
  EXPECT_LT(summary.elapsed_s, 5.0) << "simulated seconds must not be waited for";
}

TEST(TuningLoop, RealTimeBudgetCountsWallClock) {
  class SlowRunner : public SyntheticRunner {
   public:
    using SyntheticRunner::SyntheticRunner;
    std::vector<MeasureResult> Run(const std::vector<MeasureInput>& inputs,
                                   const std::vector<BuildResult>& builds) override {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      return SyntheticRunner::Run(inputs, builds);
    }
  };
  Task task = MakeTask(testing::GridSpace(4, 8));
  SlowRunner runner(task.space, {1, 2, 3, 4}, 0, /*simulated=*/false, /*cost_s=*/100.0);
  NullBuilder builder;
  std::unique_ptr<Tuner> tuner = MakeRandomTuner();
  TuneOptions options = Quiet(0, 2);
  options.max_seconds = 0.05;
  TuneSummary summary = Tune(task, *tuner, builder, runner, nullptr, options);
  EXPECT_EQ(summary.stop_reason, "time budget");
  EXPECT_GE(summary.elapsed_s, 0.05);
  // A cost_s of 100 s per measurement would have stopped after one round were it counted.
  EXPECT_GT(summary.measurements, 2);
  EXPECT_LT(summary.measurements, 100);
}

TEST(TuningLoop, StopsWhenTheSpaceIsExhausted) {
  Task task = MakeTask(testing::SmallSpace());
  SyntheticRunner runner(task.space, {1, 1, 1, 1});
  NullBuilder builder;
  for (const char* name : {"random", "grid", "ga", "sa"}) {
    std::unique_ptr<Tuner> tuner = MakeTuner(name);
    TuneSummary summary = Tune(task, *tuner, builder, runner, nullptr, Quiet(10'000, 7));
    EXPECT_EQ(summary.stop_reason, "space exhausted") << name;
    EXPECT_EQ(summary.measurements, static_cast<int64_t>(task.space.CountValid())) << name;
  }
}

TEST(TuningLoop, CountsFailuresByStatus) {
  Task task = MakeTask(testing::SmallSpace());
  SyntheticRunner runner(task.space, {3, 0, 2, 1}, /*fail_every=*/3);
  NullBuilder builder;
  std::unique_ptr<Tuner> tuner = MakeGridTuner();
  TuneSummary summary = Tune(task, *tuner, builder, runner, nullptr, Quiet(10'000));
  int64_t failing = 0;
  double best = std::numeric_limits<double>::infinity();
  for (uint64_t index : task.space.ValidIndices()) {
    Config config = task.space.FromDenseIndex(index);
    if (runner.Fails(config)) {
      ++failing;
    } else {
      best = std::min(best, runner.TimeOf(config));
    }
  }
  ASSERT_GT(failing, 0);
  EXPECT_EQ(summary.failed, failing);
  EXPECT_EQ(summary.by_status[MeasureStatus::kRuntimeDevice], failing);
  EXPECT_EQ(summary.by_status[MeasureStatus::kOk], summary.measurements - failing);
  EXPECT_EQ(summary.by_status.size(), 2u);
  EXPECT_DOUBLE_EQ(summary.best_time_s, best);
}

TEST(TuningLoop, NothingSucceedsLeavesBestInfinite) {
  Task task = MakeTask(testing::GridSpace(2, 4));
  SyntheticRunner runner(task.space, {0, 0}, /*fail_every=*/1);
  NullBuilder builder;
  std::unique_ptr<Tuner> tuner = MakeRandomTuner();
  TuneSummary summary = Tune(task, *tuner, builder, runner, nullptr, Quiet(5, 2));
  EXPECT_EQ(summary.failed, 5);
  EXPECT_TRUE(std::isinf(summary.best_time_s));
  EXPECT_FALSE(summary.best_config.has_value());
  EXPECT_TRUE(std::isinf(summary.trajectory.back().best_time_s));
}

// Proposes a fixed list, including what a strategy must never propose.
class MisbehavingTuner : public Tuner {
 public:
  explicit MisbehavingTuner(std::vector<Config> list) : list_(std::move(list)) {}
  std::string Name() const override { return "misbehaving"; }
  void Init(const TuningContext& context) override { round_ = 0; }
  std::vector<Config> Propose(size_t n) override {
    return round_++ < 2 ? list_ : std::vector<Config>{};
  }
  void Observe(const std::vector<Config>& configs,
               const std::vector<MeasureResult>& results) override {}

 private:
  std::vector<Config> list_;
  int round_ = 0;
};

TEST(TuningLoop, RefusesInvalidAndRepeatedProposals) {
  Task task = MakeTask(testing::GridSpace(2, 4));  // restriction: k0 + k1 < 6
  SyntheticRunner runner(task.space, {0, 0});
  NullBuilder builder;
  MisbehavingTuner tuner({Config{{1, 1}}, Config{{3, 3}}, Config{{1, 1}}, Config{{2, 0}}});
  std::ostringstream log;
  TuneOptions options = Quiet(100);
  options.progress = ProgressMode::kLog;
  options.progress_stream = &log;
  TuneSummary summary = Tune(task, tuner, builder, runner, nullptr, options);
  EXPECT_EQ(summary.measurements, 2);  // {1,1} and {2,0}, once each
  EXPECT_EQ(runner.runs(), 2);
  EXPECT_EQ(summary.stop_reason, "space exhausted");
  EXPECT_NE(log.str().find("warning: tuner 'misbehaving' proposed"), std::string::npos)
      << log.str();
}

std::string ValidateError(const std::function<void(TuneOptions&)>& change) {
  TuneOptions options;
  options.max_measurements = 10;
  change(options);
  try {
    options.Validate();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(TuneOptions, ValidateNamesTheOption) {
  EXPECT_EQ(ValidateError([](TuneOptions&) {}), "");
  EXPECT_EQ(ValidateError([](TuneOptions& o) {
              o.max_measurements = 0;
              o.max_seconds = 3;
            }),
            "");
  EXPECT_NE(ValidateError([](TuneOptions& o) { o.max_measurements = 0; })
                .find("--budget (max_measurements) must be a positive number of measurements "
                      "(got 0)"),
            std::string::npos);
  EXPECT_NE(ValidateError([](TuneOptions& o) { o.max_measurements = -4; }).find("(got -4)"),
            std::string::npos);
  EXPECT_NE(ValidateError([](TuneOptions& o) { o.max_seconds = -1; }).find("--time-budget"),
            std::string::npos);
  EXPECT_NE(ValidateError([](TuneOptions& o) { o.max_seconds = std::nan(""); }).find("max_seconds"),
            std::string::npos);
  EXPECT_NE(ValidateError([](TuneOptions& o) { o.batch_size = 0; }).find("batch_size"),
            std::string::npos);
  EXPECT_NE(ValidateError([](TuneOptions& o) { o.early_stopping = -1; }).find("early_stopping"),
            std::string::npos);
  // Tune validates before touching anything.
  Task task = MakeTask(testing::GridSpace(2, 4));
  SyntheticRunner runner(task.space, {0, 0});
  NullBuilder builder;
  std::unique_ptr<Tuner> tuner = MakeRandomTuner();
  TuneOptions bad = Quiet(0);
  EXPECT_THROW(Tune(task, *tuner, builder, runner, nullptr, bad), Error);
  EXPECT_EQ(runner.runs(), 0);
}

}  // namespace
}  // namespace glimpse
