// Ranking helpers of the model-based tuner: AutoTVM's early-stopping metric (average recall of the
// top k, "a-recall@k", tuner/metric.py) and its diversity selection (submodular_pick).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace glimpse::model {

// a-recall@k of predictions against fixed labels, as AutoTVM's xgb_average_recalln_curve_score:
// order the rows by prediction (best first) and let r_i be the true rank (0 = best label) of the
// i-th of them; recall(i) = |{j < i : r_j ≤ i}| / (i + 1); the score is Σ_{i<k} recall(i) / k.
// (j < i, not j ≤ i, is AutoTVM's definition; it is kept so that stopping happens where theirs
// does.) Ties in labels rank the earlier row first; ties in predictions put the later row first,
// as reversing a stable ascending sort does.
class AverageRecall {
 public:
  AverageRecall(const std::vector<float>& labels, size_t k);
  double Score(const std::vector<float>& predictions) const;

 private:
  std::vector<uint32_t> rank_;  // true rank of every row
  size_t k_;
};

// Greedy maximisation of Σ scores + knob_weight · (number of distinct (knob, value) pairs covered),
// a monotone submodular objective, as AutoTVM's submodular_pick. `knobs[i]` is candidate i's value
// index per knob. Returns the indices of min(n_pick, candidates) candidates in pick order; ties go
// to the earliest candidate.
std::vector<size_t> SubmodularPick(const std::vector<double>& scores,
                                   const std::vector<std::vector<uint32_t>>& knobs, size_t n_pick,
                                   double knob_weight = 1.0);

}  // namespace glimpse::model
