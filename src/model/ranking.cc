#include "model/ranking.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace glimpse::model {

AverageRecall::AverageRecall(const std::vector<float>& labels, size_t k)
    : rank_(labels.size()), k_(k) {
  std::vector<uint32_t> order(labels.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return labels[a] > labels[b]; });
  for (uint32_t r = 0; r < order.size(); ++r) rank_[order[r]] = r;
}

double AverageRecall::Score(const std::vector<float>& predictions) const {
  if (k_ == 0 || predictions.empty()) return 0.0;
  const size_t n = predictions.size();
  const size_t top = std::min(k_, n);
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::partial_sort(order.begin(), order.begin() + top, order.end(), [&](uint32_t a, uint32_t b) {
    if (predictions[a] != predictions[b]) return predictions[a] > predictions[b];
    return a > b;
  });
  double sum = 0.0;
  for (size_t i = 0; i < top; ++i) {
    size_t hits = 0;
    for (size_t j = 0; j < i; ++j) hits += rank_[order[j]] <= i ? 1 : 0;
    sum += static_cast<double>(hits) / static_cast<double>(i + 1);
  }
  return sum / static_cast<double>(k_);
}

std::vector<size_t> SubmodularPick(const std::vector<double>& scores,
                                   const std::vector<std::vector<uint32_t>>& knobs, size_t n_pick,
                                   double knob_weight) {
  std::vector<size_t> picked;
  if (scores.empty()) return picked;
  const size_t n_knobs = knobs[0].size();
  std::vector<std::set<uint32_t>> covered(n_knobs);
  std::vector<bool> taken(scores.size(), false);
  n_pick = std::min(n_pick, scores.size());
  while (picked.size() < n_pick) {
    size_t best = scores.size();
    double best_gain = -1e300;
    for (size_t x = 0; x < scores.size(); ++x) {
      if (taken[x]) continue;
      double gain = scores[x];
      for (size_t i = 0; i < n_knobs; ++i) {
        if (!covered[i].count(knobs[x][i])) gain += knob_weight;
      }
      if (gain > best_gain) {
        best_gain = gain;
        best = x;
      }
    }
    taken[best] = true;
    picked.push_back(best);
    for (size_t i = 0; i < n_knobs; ++i) covered[i].insert(knobs[best][i]);
  }
  return picked;
}

}  // namespace glimpse::model
