// E0 with distance maximisation and the validity bias of the planner (see model/rieber_init.h).
#include <algorithm>
#include <limits>

#include "model/rieber_init.h"

namespace glimpse::model {

uint64_t ManhattanDistance(const Config& a, const Config& b) {
  uint64_t sum = 0;
  const size_t n = std::min(a.indices.size(), b.indices.size());
  for (size_t k = 0; k < n; ++k) {
    sum += a.indices[k] > b.indices[k] ? a.indices[k] - b.indices[k] : b.indices[k] - a.indices[k];
  }
  return sum;
}

std::vector<size_t> SelectSpread(const std::vector<Config>& pool, size_t count) {
  const size_t n = pool.size();
  count = std::min(count, n);
  std::vector<size_t> picked;
  if (count == 0) return picked;
  // Pool sizes are at most the presampling's n_samples (1000): the O(n²) first pick is ~10 ms.
  size_t first = 0;
  uint64_t first_sum = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t sum = 0;
    for (size_t j = 0; j < n; ++j) sum += ManhattanDistance(pool[i], pool[j]);
    if (i == 0 || sum > first_sum) {
      first = i;
      first_sum = sum;
    }
  }
  std::vector<uint64_t> nearest(n, std::numeric_limits<uint64_t>::max());  // to the selection
  std::vector<uint64_t> total(n, 0);                                       // to the selection
  std::vector<bool> taken(n, false);
  auto take = [&](size_t index) {
    taken[index] = true;
    picked.push_back(index);
    for (size_t j = 0; j < n; ++j) {
      const uint64_t d = ManhattanDistance(pool[index], pool[j]);
      nearest[j] = std::min(nearest[j], d);
      total[j] += d;
    }
  };
  take(first);
  while (picked.size() < count) {
    size_t best = n;
    for (size_t j = 0; j < n; ++j) {
      if (taken[j]) continue;
      if (best == n || nearest[j] > nearest[best] ||
          (nearest[j] == nearest[best] && total[j] > total[best])) {
        best = j;
      }
    }
    take(best);
  }
  return picked;
}

InitialBatch SelectInitialBatch(const PresampleResult& presampled, size_t size,
                                size_t valid_quota) {
  size_t n_valid = std::min({presampled.valid.size(), valid_quota, size});
  const size_t n_invalid = std::min(presampled.invalid.size(), size - n_valid);
  n_valid = std::min(presampled.valid.size(), size - n_invalid);  // too few invalid: more valid
  InitialBatch batch;
  for (size_t index : SelectSpread(presampled.valid, n_valid)) {
    batch.configs.push_back(presampled.valid[index]);
  }
  for (size_t index : SelectSpread(presampled.invalid, n_invalid)) {
    batch.configs.push_back(presampled.invalid[index]);
  }
  batch.valid = n_valid;
  batch.invalid = n_invalid;
  return batch;
}

void ValidityBias::Apply(const std::vector<Config>& configs, std::vector<double>& scores) const {
  if (known_.empty()) return;
  for (size_t i = 0; i < configs.size() && i < scores.size(); ++i) {
    auto found = known_.find(configs[i]);
    if (found == known_.end()) continue;
    scores[i] = found->second ? scores[i] + kValidBonus : kInvalidScore;
  }
}

}  // namespace glimpse::model
