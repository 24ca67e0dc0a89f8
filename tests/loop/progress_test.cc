#include "glimpse/progress.h"

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <sstream>
#include <string>

#include "glimpse/tuning_loop.h"
#include "tuner/synthetic.h"

namespace glimpse {
namespace {

using loop::FormatDuration;

size_t Count(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}

TEST(Progress, FormatsDurationsInHumanUnits) {
  EXPECT_EQ(FormatDuration(812e-9), "812 ns");
  EXPECT_EQ(FormatDuration(12.3e-6), "12.3 µs");
  EXPECT_EQ(FormatDuration(4.56e-3), "4.56 ms");
  EXPECT_EQ(FormatDuration(1.23), "1.23 s");
  EXPECT_EQ(FormatDuration(150.0), "2.5 min");
  EXPECT_EQ(FormatDuration(7200.0), "2 h");
  EXPECT_EQ(FormatDuration(std::numeric_limits<double>::infinity()), "-");
}

TEST(Progress, LineShowsCountsBestRateAndSimulatedTime) {
  loop::ProgressState state;
  state.measurements = 120;
  state.new_measurements = 100;
  state.failed = 3;
  state.best_time_s = 1.23e-3;
  state.elapsed_s = 4.0;
  state.simulated_s = 750.0;
  EXPECT_EQ(loop::FormatProgress("conv2d", state, 500),
            "tune conv2d: 120/500 measured, 3 failed, best 1.23 ms, 4 s elapsed, 25/s, "
            "simulated 12.5 min");
  state.simulated_s = -1;
  EXPECT_EQ(loop::FormatProgress("conv2d", state, 0).find("simulated"), std::string::npos);
  EXPECT_NE(loop::FormatProgress("conv2d", state, 0).find(": 120 measured"), std::string::npos);
}

TEST(Progress, AutoIsPlainLogOnAStringStream) {
  std::ostringstream out;
  EXPECT_EQ(loop::ResolveProgressMode(ProgressMode::kAuto, out), ProgressMode::kLog);
  EXPECT_EQ(loop::ResolveProgressMode(ProgressMode::kQuiet, out), ProgressMode::kQuiet);
}

TuneSummary RunWith(ProgressMode mode, std::ostringstream& out, double log_interval_s) {
  Task task = testing::MakeTask(testing::GridSpace(3, 6), "progress-task");
  testing::SyntheticRunner runner(task.space, {1, 1, 1});
  NullBuilder builder;
  std::unique_ptr<Tuner> tuner = MakeRandomTuner();
  TuneOptions options;
  options.max_measurements = 40;
  options.batch_size = 10;
  options.progress = mode;
  options.progress_stream = &out;
  options.log_interval_s = log_interval_s;
  return Tune(task, *tuner, builder, runner, nullptr, options);
}

TEST(Progress, LogModePrintsLinesAtTheIntervalAndAtTheEnd) {
  std::ostringstream every;
  RunWith(ProgressMode::kLog, every, 0.0);
  EXPECT_EQ(Count(every.str(), "\n"), 5u) << every.str();  // four rounds and the end
  EXPECT_EQ(Count(every.str(), "tune progress-task: "), 5u);
  EXPECT_NE(every.str().find("40/40 measured, 0 failed, best "), std::string::npos);
  EXPECT_NE(every.str().find("(stopped: measurement budget)\n"), std::string::npos);
  EXPECT_NE(every.str().find("simulated 20 s"), std::string::npos);
  EXPECT_EQ(every.str().find('\r'), std::string::npos);

  std::ostringstream rare;
  RunWith(ProgressMode::kLog, rare, 3600.0);
  EXPECT_EQ(Count(rare.str(), "\n"), 2u) << rare.str();  // the first round and the end
}

TEST(Progress, LiveModeRedrawsOneLine) {
  std::ostringstream out;
  RunWith(ProgressMode::kLive, out, 0.0);
  std::string text = out.str();
  EXPECT_EQ(text.rfind("\r\x1b[K", 0), 0u);
  EXPECT_EQ(Count(text, "\n"), 1u) << "one line, ended once";
  EXPECT_EQ(text.back(), '\n');
  EXPECT_NE(text.find("(stopped: measurement budget)"), std::string::npos);
}

TEST(Progress, QuietPrintsNothing) {
  std::ostringstream out;
  TuneSummary summary = RunWith(ProgressMode::kQuiet, out, 0.0);
  EXPECT_EQ(summary.measurements, 40);
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace glimpse
