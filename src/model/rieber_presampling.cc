// Neighbourhood-driven presampling, Rieber et al. Algorithm 1 (see model/rieber_init.h).
//
// Map: `blocked` = N ∪ C ∪ P (what a new candidate must avoid) · round: Check(P) → N, drop the
// last round's unchosen candidates (C ← ∅), grow C from P's results (valid: neighbours; invalid:
// one random point) · P ← a uniform draw from C.
#include <algorithm>
#include <optional>
#include <utility>

#include "glimpse/error.h"
#include "model/rieber_init.h"
#include "model/tuner_internal.h"

namespace glimpse::model {

PresampleResult Presample(const ConfigSpace& space, ValidityChecker& checker,
                          const PresampleOptions& options, Rng& rng) {
  if (options.n_parallel < 1 || options.n_samples < 1) {
    throw Error("presampling: n_parallel and n_samples must be ≥ 1 (got " +
                std::to_string(options.n_parallel) + ", " + std::to_string(options.n_samples) +
                ")");
  }
  const size_t target = static_cast<size_t>(options.n_samples);
  const size_t n_parallel = static_cast<size_t>(options.n_parallel);
  PresampleResult out;
  ConfigSet classified;  // N
  ConfigSet blocked;     // N ∪ C ∪ P
  UnvisitedSampler sampler;
  sampler.Reset(&space);
  // A uniform random valid-by-restriction configuration outside `blocked`, now blocked too; none
  // once every configuration is (the sampler enumerates small spaces to know that for sure).
  auto random_point = [&]() -> std::optional<Config> {
    std::optional<Config> point = sampler.Next(rng, blocked);
    if (point) blocked.insert(*point);
    return point;
  };
  auto random_points = [&](size_t count) {
    std::vector<Config> points;
    while (points.size() < count) {
      std::optional<Config> point = random_point();
      if (!point) break;
      points.push_back(std::move(*point));
    }
    return points;
  };

  std::vector<Config> batch = random_points(n_parallel);  // P
  std::vector<Config> candidates;                         // C
  while (!batch.empty() && classified.size() < target) {
    if (batch.size() > target - classified.size()) {
      for (size_t i = target - classified.size(); i < batch.size(); ++i) blocked.erase(batch[i]);
      batch.resize(target - classified.size());
    }
    const std::vector<ValidityResult> results = checker.Check(batch);
    if (results.size() != batch.size()) {
      throw Error("presampling: the validity checker returned " + std::to_string(results.size()) +
                  " results for " + std::to_string(batch.size()) + " configurations");
    }
    ++out.rounds;
    for (size_t i = 0; i < batch.size(); ++i) {
      classified.insert(batch[i]);
      (results[i].valid ? out.valid : out.invalid).push_back(batch[i]);
      out.cost_s += results[i].cost_s;
    }
    // C ← ∅ (Algorithm 1 line 3): candidates not drawn into P become free again.
    for (const Config& config : candidates) {
      if (!classified.count(config)) blocked.erase(config);
    }
    candidates.clear();
    for (size_t i = 0; i < batch.size(); ++i) {
      if (results[i].valid) {
        for (Config& neighbour : space.Neighbours(batch[i], true)) {
          if (blocked.insert(neighbour).second) candidates.push_back(std::move(neighbour));
        }
      } else if (std::optional<Config> point = random_point()) {
        candidates.push_back(std::move(*point));
      }
    }
    if (classified.size() >= target) break;
    // P ← n_parallel candidates drawn uniformly without replacement (partial Fisher–Yates).
    batch.clear();
    const size_t take = std::min(n_parallel, candidates.size());
    for (size_t i = 0; i < take; ++i) {
      std::swap(candidates[i], candidates[i + UniformIndex(rng, candidates.size() - i)]);
      batch.push_back(candidates[i]);
    }
    candidates.erase(candidates.begin(), candidates.begin() + take);
    if (batch.empty()) batch = random_points(n_parallel);  // every neighbourhood is classified
  }
  return out;
}

}  // namespace glimpse::model
