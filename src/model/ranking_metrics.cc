// The ranking metrics of glimpse/ranking_metrics.h (Rieber et al., Sec. III-B).
#include "glimpse/ranking_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "glimpse/error.h"

namespace glimpse {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

int Sign(double x) { return (x > 0.0) - (x < 0.0); }

// Indices sorted by `scores`, highest first; equal scores keep their input order.
std::vector<size_t> RankBy(const std::vector<double>& scores) {
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  return order;
}

void CheckSizes(const char* metric, size_t predicted, size_t measured, size_t valid) {
  if (predicted != measured || predicted != valid) {
    throw Error(std::string(metric) + ": " + std::to_string(predicted) + " predictions, " +
                std::to_string(measured) + " measurements and " + std::to_string(valid) +
                " validity flags; one of each per configuration is needed");
  }
}

// c_i: the measured performance, 0 for an invalid configuration.
std::vector<double> Gains(const std::vector<double>& measured, const std::vector<bool>& valid) {
  std::vector<double> gains(measured.size(), 0.0);
  for (size_t i = 0; i < measured.size(); ++i) gains[i] = valid[i] ? measured[i] : 0.0;
  return gains;
}

}  // namespace

PairwiseAccuracy ComputePairwiseAccuracy(const std::vector<double>& predicted,
                                         const std::vector<double>& measured,
                                         const std::vector<bool>& valid) {
  CheckSizes("pairwise accuracy", predicted.size(), measured.size(), valid.size());
  const std::vector<double> m = Gains(measured, valid);
  int64_t vv_correct = 0, vi_correct = 0;
  PairwiseAccuracy out;
  for (size_t i = 0; i < m.size(); ++i) {
    for (size_t j = i + 1; j < m.size(); ++j) {
      if (!valid[i] && !valid[j]) continue;  // no ranking among invalid configurations
      const bool correct = Sign(m[i] - m[j]) == Sign(predicted[i] - predicted[j]);
      if (valid[i] && valid[j]) {
        ++out.valid_valid_pairs;
        vv_correct += correct;
      } else {
        ++out.valid_invalid_pairs;
        vi_correct += correct;
      }
    }
  }
  auto ratio = [](int64_t a, int64_t b) {
    return b == 0 ? kNaN : static_cast<double>(a) / static_cast<double>(b);
  };
  out.valid_valid = ratio(vv_correct, out.valid_valid_pairs);
  out.valid_invalid = ratio(vi_correct, out.valid_invalid_pairs);
  out.overall = ratio(vv_correct + vi_correct, out.valid_valid_pairs + out.valid_invalid_pairs);
  return out;
}

double PrecisionAtN(const std::vector<double>& predicted, const std::vector<bool>& valid,
                    size_t n) {
  if (predicted.size() != valid.size()) {
    throw Error("precision@n: " + std::to_string(predicted.size()) + " predictions but " +
                std::to_string(valid.size()) + " validity flags");
  }
  const size_t top = std::min(n, predicted.size());
  if (top == 0) return kNaN;
  const std::vector<size_t> order = RankBy(predicted);
  size_t hits = 0;
  for (size_t i = 0; i < top; ++i) hits += valid[order[i]] ? 1 : 0;
  return static_cast<double>(hits) / static_cast<double>(top);
}

double NdcgAtN(const std::vector<double>& predicted, const std::vector<double>& measured,
               const std::vector<bool>& valid, size_t n) {
  CheckSizes("nDCG@n", predicted.size(), measured.size(), valid.size());
  const size_t top = std::min(n, predicted.size());
  if (top == 0) return kNaN;
  const std::vector<double> gains = Gains(measured, valid);
  auto dcg = [&](const std::vector<size_t>& order) {
    double sum = 0.0;
    for (size_t i = 0; i < top; ++i) sum += gains[order[i]] / std::log2(static_cast<double>(i) + 2);
    return sum;
  };
  const double ideal = dcg(RankBy(gains));
  if (!(ideal > 0.0)) return kNaN;
  return dcg(RankBy(predicted)) / ideal;
}

}  // namespace glimpse
