// Metrics on hand-made trajectories: quantiles, reaching a fraction (never reached, ties with the
// optimum, exhausted spaces), checkpoints, failures and the first batch.
#include <gtest/gtest.h>

#include <cmath>

#include "glimpse/error.h"
#include "glimpse/evaluation.h"

namespace glimpse {
namespace {

constexpr double kOptimum = 0.001;  // seconds

// A run whose best-so-far improves at the given (measurement, time) points; each measurement
// costs 2 simulated seconds.
RunRecord MakeRun(std::vector<std::pair<int64_t, double>> improvements, int64_t measurements,
                  int64_t budget = 100, std::string stop_reason = "measurement budget") {
  RunRecord run;
  run.space = "s/d";
  run.strategy = "x";
  run.measurements = measurements;
  run.max_measurements = budget;
  run.stop_reason = std::move(stop_reason);
  run.simulated_s = 2.0 * static_cast<double>(measurements);
  for (auto [measurement, time] : improvements) {
    run.best_curve.push_back({measurement, 2.0 * static_cast<double>(measurement), time});
  }
  return run;
}

TEST(QuantileTest, InterpolatesLinearlyBetweenOrderStatistics) {
  std::vector<double> values = {4, 1, 3, 2};  // unsorted on purpose
  EXPECT_DOUBLE_EQ(Quantile(values, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(Quantile(values, 0.25), 1.0 + 0.75 * (2.0 - 1.0));
  EXPECT_DOUBLE_EQ(Quantile(values, 0.75), 3.0 + 0.25 * (4.0 - 3.0));
  EXPECT_DOUBLE_EQ(Quantile(values, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(Quantile(values, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(Quantile({7.0}, 0.25), 7.0);
  EXPECT_TRUE(std::isnan(Quantile({}, 0.5)));
  Quantiles q = ComputeQuantiles({10, 20, 30});
  EXPECT_DOUBLE_EQ(q.median, 20);
  EXPECT_DOUBLE_EQ(q.q1, 15);
  EXPECT_DOUBLE_EQ(q.q3, 25);
}

TEST(PerformanceAtTest, IsTheBestSoFarAndZeroBeforeTheFirstSuccess) {
  RunRecord run = MakeRun({{3, 2 * kOptimum}, {10, kOptimum}}, 20);
  EXPECT_EQ(PerformanceAt(run, kOptimum, 2), 0.0);
  EXPECT_DOUBLE_EQ(PerformanceAt(run, kOptimum, 3), 0.5);
  EXPECT_DOUBLE_EQ(PerformanceAt(run, kOptimum, 9), 0.5);
  EXPECT_DOUBLE_EQ(PerformanceAt(run, kOptimum, 10), 1.0);
  EXPECT_DOUBLE_EQ(PerformanceAt(run, kOptimum, 1000), 1.0);
}

TEST(MeasurementsToFractionTest, FirstMeasurementAtOrAboveTheFraction) {
  RunRecord run = MakeRun({{3, kOptimum / 0.5}, {7, kOptimum / 0.93}, {12, kOptimum}}, 50);
  Reach reach = MeasurementsToFraction(run, kOptimum, 0.9);
  EXPECT_TRUE(reach.reached);
  EXPECT_EQ(reach.value, 7);
  EXPECT_EQ(MeasurementsToFraction(run, kOptimum, 0.95).value, 12);
  EXPECT_EQ(MeasurementsToFraction(run, kOptimum, 0.5).value, 3);
}

TEST(MeasurementsToFractionTest, TiesWithTheOptimumReachIt) {
  // Exactly the optimum, and the optimum recomputed through a rounding step (within 1e-9).
  RunRecord exact = MakeRun({{5, kOptimum}}, 10);
  EXPECT_TRUE(MeasurementsToFraction(exact, kOptimum, 1.0).reached);
  RunRecord rounded = MakeRun({{5, kOptimum * (1.0 + 1e-12)}}, 10);
  Reach reach = MeasurementsToFraction(rounded, kOptimum, 1.0);
  EXPECT_TRUE(reach.reached);
  EXPECT_EQ(reach.value, 5);
  // Clearly slower is not a tie.
  RunRecord slower = MakeRun({{5, kOptimum * (1.0 + 1e-6)}}, 10);
  EXPECT_FALSE(MeasurementsToFraction(slower, kOptimum, 1.0).reached);
}

TEST(MeasurementsToFractionTest, NeverReachedCountsAtTheBudget) {
  RunRecord run = MakeRun({{4, kOptimum / 0.8}}, 100, /*budget=*/100);
  Reach reach = MeasurementsToFraction(run, kOptimum, 0.9);
  EXPECT_FALSE(reach.reached);
  EXPECT_EQ(reach.value, 100);
  // A run with no success at all.
  RunRecord failed = MakeRun({}, 100, 100);
  EXPECT_FALSE(MeasurementsToFraction(failed, kOptimum, 0.9).reached);
  EXPECT_EQ(MeasurementsToFraction(failed, kOptimum, 0.9).value, 100);
}

TEST(MeasurementsToFractionTest, ExhaustedOrTimeBudgetedRunsCountAtTheirMeasurements) {
  RunRecord exhausted = MakeRun({{4, kOptimum / 0.8}}, 30, 100, "space exhausted");
  EXPECT_EQ(MeasurementsToFraction(exhausted, kOptimum, 0.9).value, 30);
  RunRecord timed = MakeRun({{4, kOptimum / 0.8}}, 42, /*budget=*/0, "time budget");
  EXPECT_EQ(MeasurementsToFraction(timed, kOptimum, 0.9).value, 42);
}

TEST(SimulatedSecondsToFractionTest, ReadsTheCurvesClockOrTheRunsTotal) {
  RunRecord run = MakeRun({{3, kOptimum / 0.5}, {9, kOptimum / 0.96}}, 40);
  Reach reach = SimulatedSecondsToFraction(run, kOptimum, 0.95);
  EXPECT_TRUE(reach.reached);
  EXPECT_DOUBLE_EQ(reach.value, 18.0);
  Reach never = SimulatedSecondsToFraction(run, kOptimum, 0.99);
  EXPECT_FALSE(never.reached);
  EXPECT_DOUBLE_EQ(never.value, run.simulated_s);
}

StudySettings Settings() {
  StudySettings settings;
  settings.max_measurements = 100;
  settings.checkpoints = {10, 100, 200};
  settings.fractions = {0.9, 1.0};
  settings.first_batch = 4;
  return settings;
}

TEST(SummarizeRunsTest, EveryFieldFromHandMadeRuns) {
  std::vector<RunRecord> runs = {
      MakeRun({{2, kOptimum / 0.5}, {20, kOptimum}}, 100),         // 0.9 and 1.0 at 20
      MakeRun({{5, kOptimum / 0.95}}, 100),                        // 0.9 at 5, never 1.0
      MakeRun({{1, kOptimum / 0.91}, {60, kOptimum}}, 100),        // 0.9 at 1, 1.0 at 60
      MakeRun({{8, kOptimum / 0.4}}, 30, 100, "space exhausted"),  // neither, at 30
  };
  runs[0].failed = 10;
  runs[1].failed = 0;
  runs[2].failed = 50;
  runs[2].not_recorded = 20;  // holes of a partial recording: not in the failed fraction
  runs[3].failed = 3;
  runs[0].tuner_cpu_s = 1.0;
  runs[1].tuner_cpu_s = 2.0;
  runs[2].tuner_cpu_s = 3.0;
  runs[3].tuner_cpu_s = 4.0;
  runs[0].first_batch_performance = {0.1, 0.0, 0.5, 0.2};
  runs[1].first_batch_performance = {0.3, 0.3, 0.0, 0.9};
  runs[2].first_batch_performance = {0.0, 0.0, 0.0, 0.0};
  runs[3].first_batch_performance = {0.4, 0.6, 0.2, 0.1};
  std::vector<const RunRecord*> pointers;
  for (const RunRecord& run : runs) pointers.push_back(&run);

  RunSummary summary = SummarizeRuns(pointers, kOptimum, Settings());
  EXPECT_EQ(summary.runs, 4);
  EXPECT_EQ(summary.space, "s/d");

  const ReachQuantiles& to90 = summary.measurements_to_fraction.at(0.9);
  Quantiles expected90 = ComputeQuantiles({20, 5, 1, 30});
  EXPECT_DOUBLE_EQ(to90.q.median, expected90.median);
  EXPECT_DOUBLE_EQ(to90.q.q1, expected90.q1);
  EXPECT_DOUBLE_EQ(to90.q.q3, expected90.q3);
  EXPECT_EQ(to90.not_reached, 1);
  const ReachQuantiles& to100 = summary.measurements_to_fraction.at(1.0);
  EXPECT_DOUBLE_EQ(to100.q.median, ComputeQuantiles({20, 100, 60, 30}).median);
  EXPECT_EQ(to100.not_reached, 2);

  // @10: every run; @100: every run (budget 100, the exhausted one keeps its best); @200: only
  // the exhausted run, whose best can no longer change.
  EXPECT_DOUBLE_EQ(summary.fraction_at.at(10).median,
                   ComputeQuantiles({0.5, 0.95, 0.91, 0.4}).median);
  EXPECT_DOUBLE_EQ(summary.fraction_at.at(100).median,
                   ComputeQuantiles({1.0, 0.95, 1.0, 0.4}).median);
  ASSERT_EQ(summary.fraction_at.count(200), 1u);
  EXPECT_DOUBLE_EQ(summary.fraction_at.at(200).median, 0.4);

  Quantiles failed = ComputeQuantiles({0.1, 0.0, 0.3, 3.0 / 30.0});
  EXPECT_DOUBLE_EQ(summary.failed_fraction.median, failed.median);
  EXPECT_DOUBLE_EQ(summary.failed_fraction.q3, failed.q3);

  std::vector<double> pooled;
  for (const RunRecord& run : runs) {
    pooled.insert(pooled.end(), run.first_batch_performance.begin(),
                  run.first_batch_performance.end());
  }
  EXPECT_DOUBLE_EQ(summary.first_batch.median, Quantile(pooled, 0.5));
  EXPECT_DOUBLE_EQ(summary.first_batch.q1, Quantile(pooled, 0.25));
  EXPECT_DOUBLE_EQ(summary.first_batch_best_median, Quantile({0.5, 0.9, 0.0, 0.6}, 0.5));

  EXPECT_DOUBLE_EQ(summary.tuner_cpu_s.median, 2.5);
  const ReachQuantiles& sim = summary.simulated_s_to_95;
  // Reached at 2·20 s and 2·5 s and 2·60 s; never by the exhausted run (its total: 60 s).
  EXPECT_DOUBLE_EQ(sim.q.median, ComputeQuantiles({40, 10, 120, 60}).median);
  EXPECT_EQ(sim.not_reached, 1);
}

TEST(SummarizeRunsTest, CheckpointsBeyondEveryBudgetAreLeftOut) {
  RunRecord run = MakeRun({{1, kOptimum}}, 100, 100);
  RunSummary summary = SummarizeRuns({&run}, kOptimum, Settings());
  EXPECT_EQ(summary.fraction_at.count(100), 1u);
  EXPECT_EQ(summary.fraction_at.count(200), 0u);
}

TEST(SummarizeTest, GroupsRunsBySpaceToolAndStrategy) {
  StudyResults results;
  results.settings = Settings();
  results.spaces = {{"a/x", "a", "X", "a/x.json", 10, 10, kOptimum},
                    {"b/y", "b", "Y", "b/y.json", 10, 10, 2 * kOptimum}};
  for (const char* space : {"a/x", "b/y"}) {
    for (const char* tool : {"glimpse", "kernel_tuner"}) {
      for (uint64_t seed : {0, 1, 2}) {
        RunRecord run = MakeRun({{3, 2 * kOptimum}}, 100);
        run.space = space;
        run.tool = tool;
        run.seed = seed;
        results.runs.push_back(run);
      }
    }
  }
  Summarize(results);
  ASSERT_EQ(results.summaries.size(), 4u);
  EXPECT_EQ(results.summaries[0].space, "a/x");
  EXPECT_EQ(results.summaries[0].runs, 3);
  // Performance is relative to each space's own optimum.
  EXPECT_DOUBLE_EQ(results.summaries[0].fraction_at.at(10).median, 0.5);
  EXPECT_DOUBLE_EQ(results.summaries[3].fraction_at.at(10).median, 1.0);

  results.runs.back().space = "c/z";
  EXPECT_THROW(Summarize(results), Error);
}

}  // namespace
}  // namespace glimpse
