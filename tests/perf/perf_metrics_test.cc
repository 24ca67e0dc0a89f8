// The evaluation metrics on examples worked out by hand: MAPE and its 5 µs cut, Kendall's τ-b with
// ties, the within-operator average and its skipped operators, top-k slowdown, and all of them per
// operator kind.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/perf_eval.h"

namespace glimpse {
namespace {

// Records live in a deque so the pointers stay valid while tests add more.
struct Records {
  std::deque<PerfCorpusRecord> store;
  std::vector<const PerfCorpusRecord*> ptrs;
  void Add(const std::string& op, double time_s, bool ok = true,
           const std::string& kind = "dense") {
    PerfCorpusRecord r;
    r.op = op;
    r.kind = kind;
    r.status = ok ? MeasureStatus::kOk : MeasureStatus::kRuntimeDevice;
    r.time_s = ok ? time_s : INFINITY;
    store.push_back(r);
    ptrs.push_back(&store.back());
  }
};

TEST(PerfMetrics, MapeCutsMeasurementsUnderFiveMicroseconds) {
  // 10 µs predicted 12: 20 %; 4 µs is under the cut; 20 µs predicted 15: 25 %. Mean 22.5 %.
  EXPECT_NEAR(Mape({10e-6, 4e-6, 20e-6}, {12e-6, 1.0, 15e-6}), 22.5, 1e-9);
  // Exactly 5 µs counts.
  EXPECT_NEAR(Mape({5e-6}, {6e-6}), 20.0, 1e-9);
  EXPECT_TRUE(std::isnan(Mape({1e-6, 2e-6}, {1e-6, 2e-6})));
  EXPECT_NEAR(Mape({1e-6}, {2e-6}, 0.0), 100.0, 1e-9);
  EXPECT_THROW(Mape({1.0}, {1.0, 2.0}), Error);
}

TEST(PerfMetrics, MapeOfRecordsSkipsFailures) {
  Records r;
  r.Add("a", 1e-3);
  r.Add("a", 0.0, /*ok=*/false);
  r.Add("a", 2e-6);
  EXPECT_NEAR(MapeOfRecords(r.ptrs, {1.5e-3, 5.0, 1.0}), 50.0, 1e-9);
  EXPECT_EQ(MapeCount(r.ptrs), 1);
}

TEST(PerfMetrics, KendallTauBCountsTiesOnNeitherSide) {
  // One discordant pair of six: (5 − 1) / 6.
  EXPECT_NEAR(KendallTauB({1, 2, 3, 4}, {1, 3, 2, 4}), 4.0 / 6.0, 1e-12);
  EXPECT_NEAR(KendallTauB({1, 2, 3}, {3, 2, 1}), -1.0, 1e-12);
  // x ties pair (2,3), y ties pair (3,4); the other 4 pairs concordant: 4 / √(5 · 5).
  EXPECT_NEAR(KendallTauB({1, 2, 2, 3}, {1, 2, 3, 3}), 0.8, 1e-12);
  EXPECT_TRUE(std::isnan(KendallTauB({1, 1, 1}, {1, 2, 3})));
  EXPECT_TRUE(std::isnan(KendallTauB({1}, {1})));
}

TEST(PerfMetrics, TauWithinOperatorAveragesOperatorsAndSkipsSingletons) {
  Records r;
  r.Add("A", 1.0);  // A: perfect order, τ = 1
  r.Add("A", 2.0);
  r.Add("A", 3.0);
  r.Add("B", 1.0);  // B: reversed, τ = −1
  r.Add("B", 2.0);
  r.Add("C", 1.0);                // C: one record, skipped
  r.Add("C", 9.0, /*ok=*/false);  // a failure does not count
  r.Add("D", 4.0);                // D: measured times all tie, skipped
  r.Add("D", 4.0);
  const std::vector<double> p = {1, 2, 3, 2, 1, 5, 1, 1, 2};
  const WithinOperatorTau tau = KendallTauWithinOperator(r.ptrs, p);
  EXPECT_EQ(tau.operators, 2);
  EXPECT_NEAR(tau.mean, 0.0, 1e-12);

  // Constant predictions rank nothing: τ 0 per operator, not a skip.
  const WithinOperatorTau flat = KendallTauWithinOperator(r.ptrs, std::vector<double>(9, 1.0));
  EXPECT_EQ(flat.operators, 2);
  EXPECT_NEAR(flat.mean, 0.0, 1e-12);

  Records single;
  single.Add("X", 1.0);
  EXPECT_TRUE(std::isnan(KendallTauWithinOperator(single.ptrs, {1.0}).mean));
  EXPECT_EQ(KendallTauWithinOperator(single.ptrs, {1.0}).operators, 0);
}

TEST(PerfMetrics, TopKSlowdownIsBestOfPredictedTopOverBest) {
  Records r;
  // A: predicted order 0 (4 s), 2 (3 s), 3 (2 s), 1 (1 s); best 1 s.
  r.Add("A", 4.0);
  r.Add("A", 1.0);
  r.Add("A", 3.0);
  r.Add("A", 2.0);
  // B: predicted best is the measured best.
  r.Add("B", 2.0);
  r.Add("B", 6.0);
  // C: one record: slowdown 1 for every k.
  r.Add("C", 5.0);
  r.Add("C", 1.0, /*ok=*/false);
  const std::vector<double> p = {1, 4, 2, 3, 1, 2, 7, 0};
  const TopKSlowdown top1 = TopKSlowdownOf(r.ptrs, p, 1);
  EXPECT_EQ(top1.operators, 3);
  EXPECT_NEAR(top1.mean, (4.0 + 1.0 + 1.0) / 3.0, 1e-12);
  EXPECT_NEAR(top1.median, 1.0, 1e-12);
  EXPECT_NEAR(TopKSlowdownOf(r.ptrs, p, 2).mean, (3.0 + 1.0 + 1.0) / 3.0, 1e-12);
  EXPECT_NEAR(TopKSlowdownOf(r.ptrs, p, 3).mean, (2.0 + 1.0 + 1.0) / 3.0, 1e-12);
  // k beyond an operator's size takes all its records.
  EXPECT_NEAR(TopKSlowdownOf(r.ptrs, p, 10).mean, 1.0, 1e-12);
  EXPECT_THROW(TopKSlowdownOf(r.ptrs, p, 0), Error);
}

TEST(PerfMetrics, TopKSlowdownBreaksPredictionTiesByInputOrder) {
  Records r;
  r.Add("A", 3.0);
  r.Add("A", 1.0);
  // Both predicted equal: the first (3 s) is the top-1.
  EXPECT_NEAR(TopKSlowdownOf(r.ptrs, {5.0, 5.0}, 1).mean, 3.0, 1e-12);
  // Even count of operators: the median is the mean of the middle two.
  r.Add("B", 2.0);
  r.Add("B", 1.0);
  EXPECT_NEAR(TopKSlowdownOf(r.ptrs, {5.0, 5.0, 1.0, 2.0}, 1).median, 2.5, 1e-12);
}

TEST(PerfMetrics, ScoresPerKindAreTheMetricsOfEachKindAlone) {
  Records r;
  // dense: operator A ranked right (τ 1, top-1 1), 20 µs predicted 30 µs and 10 µs predicted 10.
  r.Add("A", 20e-6);
  r.Add("A", 10e-6);
  // conv2d: operator C ranked backwards (τ −1, top-1 picks 8 µs of best 6 µs), 6 µs predicted
  // 9 µs; operator D has one ok record and a failure.
  r.Add("C", 6e-6, /*ok=*/true, "conv2d");
  r.Add("C", 8e-6, /*ok=*/true, "conv2d");
  r.Add("D", 7e-6, /*ok=*/true, "conv2d");
  r.Add("D", 1e-6, /*ok=*/false, "conv2d");
  const std::vector<double> p = {30e-6, 10e-6, 9e-6, 8e-6, 7e-6, 1.0};

  const PerfMetrics all = ScorePredictions(r.ptrs, p);
  EXPECT_EQ(all.records, 5);
  EXPECT_EQ(all.operators, 3);
  EXPECT_EQ(all.tau.operators, 2);
  EXPECT_NEAR(all.tau.mean, 0.0, 1e-12);  // (1 − 1) / 2

  const std::vector<PerfGroupMetrics> kinds = ScorePredictionsByKind(r.ptrs, p);
  ASSERT_EQ(kinds.size(), 2u);
  EXPECT_EQ(kinds[0].group, "conv2d");  // sorted by name
  EXPECT_EQ(kinds[1].group, "dense");
  const PerfMetrics& conv = kinds[0].metrics;
  EXPECT_EQ(conv.records, 3);
  EXPECT_EQ(conv.operators, 2);
  EXPECT_NEAR(conv.tau.mean, -1.0, 1e-12);
  EXPECT_EQ(conv.tau.operators, 1);
  EXPECT_NEAR(conv.top1.mean, (8.0 / 6.0 + 1.0) / 2.0, 1e-12);
  // 6 → 9 µs: 50 %; 8 → 8: 0 %; 7 → 7: 0 %.
  EXPECT_NEAR(conv.mape, 50.0 / 3.0, 1e-9);
  const PerfMetrics& dense = kinds[1].metrics;
  EXPECT_NEAR(dense.tau.mean, 1.0, 1e-12);
  EXPECT_NEAR(dense.top1.mean, 1.0, 1e-12);
  EXPECT_NEAR(dense.mape, 25.0, 1e-9);  // 50 % and 0 %
  EXPECT_EQ(dense.mape_records, 2);

  const std::vector<PerfGroupMetrics> ops = ScorePredictionsByOperator(r.ptrs, p);
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[1].group, "C");
  EXPECT_NEAR(ops[1].metrics.top1.mean, 8.0 / 6.0, 1e-12);
  EXPECT_EQ(ops[2].group, "D");
  EXPECT_EQ(ops[2].metrics.records, 1);
  EXPECT_EQ(ops[2].metrics.tau.operators, 0);  // one ok record: nothing to rank

  const PerfMetrics none = ScorePredictions({}, {});
  EXPECT_TRUE(std::isnan(none.tau.mean));
  EXPECT_TRUE(std::isnan(none.top1.mean));
  EXPECT_EQ(none.records, 0);
  EXPECT_THROW(ScorePredictionsByKind(r.ptrs, {1.0}), Error);
  EXPECT_THROW(ScorePredictionsByOperator(r.ptrs, {1.0}), Error);
}

}  // namespace
}  // namespace glimpse
