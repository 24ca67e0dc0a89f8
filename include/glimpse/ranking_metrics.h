// glimpse/ranking_metrics.h — how well a cost model ranks configurations, with invalid ones in the
// mix: the metrics of Rieber et al., Sec. III-B (../shared/papers/rieber-2022-hw-aware-
// initialization.txt), for studying models apart from any tuning run (bench/rieber_model_quality).
//
// Inputs, one entry per configuration: `predicted` the model's score (higher = predicted faster),
// `measured` the true performance (throughput-like, higher = faster, > 0 for valid
// configurations; the paper scores invalid ones m = 0, and measured[i] is ignored where
// valid[i] is false), `valid` whether the configuration ran. The ranking is the configurations
// sorted by predicted score, best first; equal scores keep their input order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace glimpse {

// Accuracy of pairwise comparisons (Eq. 1): a pair is correct when sign(m_i − m_j) =
// sign(p_i − p_j) with m = 0 for invalid configurations; pairs of two invalid ones are ignored.
// So a valid–invalid pair is correct when the valid one is predicted strictly higher, and a
// valid–valid pair when the prediction orders it as the measurement does (a measured tie only
// when the predictions tie too). Each accuracy is NaN when it has no pairs.
struct PairwiseAccuracy {
  double overall = 0.0;  // over valid–valid and valid–invalid pairs together
  double valid_valid = 0.0;
  double valid_invalid = 0.0;
  int64_t valid_valid_pairs = 0;
  int64_t valid_invalid_pairs = 0;
};
PairwiseAccuracy ComputePairwiseAccuracy(const std::vector<double>& predicted,
                                         const std::vector<double>& measured,
                                         const std::vector<bool>& valid);

// precision@n (Eq. 2): the share of valid configurations among the top min(n, size) of the
// ranking. NaN for an empty input or n = 0.
double PrecisionAtN(const std::vector<double>& predicted, const std::vector<bool>& valid, size_t n);

// nDCG@n (Eq. 3–5): DCG@n = Σ_{i=1..n} c_{r_i} / log2(i + 1) over the top min(n, size) of the
// ranking, c the measured performance (0 for invalid configurations), divided by the same sum over
// the ideal ranking (by measured performance). In [0, 1]; NaN when nothing in the input is valid
// (the ideal DCG is 0) or n = 0.
double NdcgAtN(const std::vector<double>& predicted, const std::vector<double>& measured,
               const std::vector<bool>& valid, size_t n);

}  // namespace glimpse
