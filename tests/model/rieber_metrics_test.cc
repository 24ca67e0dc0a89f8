// The ranking metrics of Rieber et al. Sec. III-B on hand-computed examples.
#include <gtest/gtest.h>

#include <cmath>

#include "glimpse/error.h"
#include "glimpse/ranking_metrics.h"

namespace glimpse {
namespace {

// Five configurations: three valid (measured 10, 5, 20), two invalid.
// Ranking by prediction: 0 (3), 4 (2.5), 2 (2), 1 (1), 3 (0).
const std::vector<double> kPredicted = {3.0, 1.0, 2.0, 0.0, 2.5};
const std::vector<double> kMeasured = {10.0, 5.0, 123.0, 456.0, 20.0};  // invalid ones ignored
const std::vector<bool> kValid = {true, true, false, false, true};

TEST(RieberMetricsTest, PairwiseAccuracyIgnoresInvalidPairs) {
  PairwiseAccuracy accuracy = ComputePairwiseAccuracy(kPredicted, kMeasured, kValid);
  // Valid–valid: (0,1) right, (0,4) wrong (10 < 20 but 3 > 2.5), (1,4) right.
  EXPECT_EQ(accuracy.valid_valid_pairs, 3);
  EXPECT_DOUBLE_EQ(accuracy.valid_valid, 2.0 / 3.0);
  // Valid–invalid: right unless the invalid one is predicted higher: only (1,2) (1 < 2) is wrong.
  EXPECT_EQ(accuracy.valid_invalid_pairs, 6);
  EXPECT_DOUBLE_EQ(accuracy.valid_invalid, 5.0 / 6.0);
  // (2,3), invalid–invalid, is not counted at all.
  EXPECT_DOUBLE_EQ(accuracy.overall, 7.0 / 9.0);
}

TEST(RieberMetricsTest, PairwiseAccuracyTiesAndEmptyCases) {
  // A predicted tie on a valid–invalid pair does not put the valid one above: wrong.
  PairwiseAccuracy tie = ComputePairwiseAccuracy({1.0, 1.0}, {2.0, 0.0}, {true, false});
  EXPECT_DOUBLE_EQ(tie.valid_invalid, 0.0);
  EXPECT_TRUE(std::isnan(tie.valid_valid));
  PairwiseAccuracy none = ComputePairwiseAccuracy({1.0, 2.0}, {0.0, 0.0}, {false, false});
  EXPECT_TRUE(std::isnan(none.overall));
  EXPECT_THROW(ComputePairwiseAccuracy({1.0}, {1.0, 2.0}, {true, true}), Error);
}

TEST(RieberMetricsTest, PrecisionAtN) {
  EXPECT_DOUBLE_EQ(PrecisionAtN(kPredicted, kValid, 1), 1.0);
  EXPECT_DOUBLE_EQ(PrecisionAtN(kPredicted, kValid, 2), 1.0);
  EXPECT_DOUBLE_EQ(PrecisionAtN(kPredicted, kValid, 3), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(PrecisionAtN(kPredicted, kValid, 4), 3.0 / 4.0);
  EXPECT_DOUBLE_EQ(PrecisionAtN(kPredicted, kValid, 10), 3.0 / 5.0);  // n capped at the size
  EXPECT_DOUBLE_EQ(PrecisionAtN({1.0, 1.0}, {false, true}, 1), 0.0);  // ties: input order
  EXPECT_TRUE(std::isnan(PrecisionAtN(kPredicted, kValid, 0)));
}

TEST(RieberMetricsTest, NdcgAtN) {
  const double log3 = std::log2(3.0);
  // Top 3 by prediction gain 10, 20, 0; the ideal top 3 gains 20, 10, 5.
  EXPECT_NEAR(NdcgAtN(kPredicted, kMeasured, kValid, 3),
              (10.0 + 20.0 / log3) / (20.0 + 10.0 / log3 + 5.0 / 2.0), 1e-12);
  EXPECT_NEAR(NdcgAtN(kPredicted, kMeasured, kValid, 1), 0.5, 1e-12);
  // A perfect ranking scores 1; an all-invalid set has no ideal gain.
  EXPECT_NEAR(NdcgAtN({3.0, 2.0, 1.0}, {9.0, 4.0, 0.0}, {true, true, false}, 3), 1.0, 1e-12);
  EXPECT_TRUE(std::isnan(NdcgAtN({1.0, 2.0}, {0.0, 0.0}, {false, false}, 2)));
}

}  // namespace
}  // namespace glimpse
