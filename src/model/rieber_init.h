// Validity-driven initialisation of the XGBoost tuner, after Rieber et al., "Hardware-aware
// initialization" (../shared/papers/rieber-2022-hw-aware-initialization.txt, Sec. IV and
// Algorithm 1):
//   1. Presample: classify configurations with a cheap ValidityChecker, walking the
//      neighbourhoods of valid ones (validity clusters in index space, Sec. III-A).
//   2. SelectInitialBatch: the first measured batch E0, valid and invalid members each chosen to
//      be far apart in Manhattan distance over value indices.
//   3. ValidityBias: the planner's model scores, known invalid → −10^6, known valid → +1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "glimpse/random.h"
#include "glimpse/space.h"
#include "glimpse/validity.h"

namespace glimpse::model {

struct PresampleOptions {
  int n_parallel = 16;   // configurations checked per round (Algorithm 1's n_parallel)
  int n_samples = 1000;  // configurations to classify; min(n_samples, |S|) are (the paper: 1000)
};

struct PresampleResult {
  std::vector<Config> valid;    // checked valid, in the order they were checked
  std::vector<Config> invalid;  // checked invalid, in the order they were checked
  double cost_s = 0.0;          // the checker's cost of all of them
  int rounds = 0;               // checker calls (rounds of Algorithm 1)
};

// Algorithm 1. P ← n_parallel distinct uniform random valid-by-restriction configurations; then
// rounds of: check P (one checker call) and add every member to N; C ← ∅; every valid member adds
// its Manhattan-distance-1 neighbours (ConfigSpace::Neighbours, restrictions respected) that are
// neither in C nor in N nor in P; every invalid one adds one uniform random configuration outside
// C ∪ N ∪ P; P ← n_parallel members of C drawn uniformly without replacement (all of C when it is
// smaller; fresh random points when C is empty). Stops when min(n_samples, |S|) distinct
// configurations are classified (the last round is cut to fit, so exactly that many are, |S|
// counted where the space is small enough to enumerate), or when no unclassified configuration
// can be found. Deterministic for a given `rng` state.
PresampleResult Presample(const ConfigSpace& space, ValidityChecker& checker,
                          const PresampleOptions& options, Rng& rng);

// Σ_k |a_k − b_k| over value indices.
uint64_t ManhattanDistance(const Config& a, const Config& b);

// Greedy farthest-point (max-min) selection of min(count, pool.size()) members of `pool`, as
// indices in pick order. The rule: first the member with the largest sum of distances to the
// whole pool (the most outlying one); then, repeatedly, the member whose distance to its nearest
// already selected member is largest; ties go to the larger sum of distances to the selected
// members, then to the earlier member of `pool`. (Gonzalez's greedy: a 2-approximation of the
// largest possible minimum pairwise distance.)
std::vector<size_t> SelectSpread(const std::vector<Config>& pool, size_t count);

struct InitialBatch {
  std::vector<Config> configs;  // the valid members first, then the invalid ones
  size_t valid = 0;
  size_t invalid = 0;
};

// E0 (Sec. IV-B and V-A): |E_valid| = min(|N_valid|, valid_quota) and |E_invalid| =
// min(|N_invalid|, size − |E_valid|) (the paper prints "50 − |N_valid|", which would be negative
// whenever presampling finds more than 50 valid configurations; 50 − |E_valid| is meant). Where
// there are too few invalid configurations to fill the rest, further valid ones fill it, so E0
// has min(size, |N|) members. Each part is chosen by SelectSpread within its own set.
InitialBatch SelectInitialBatch(const PresampleResult& presampled, size_t size, size_t valid_quota);

// What the tuner knows about validity (presampling and measurements) as a bias on the planner's
// model scores (Sec. IV-C): a known invalid configuration's score becomes −10^6 (out of any top-n:
// rank-loss scores lie within about ±7), a known valid one's gets +1 (a better chance of the top-n
// without overshadowing better predictions). Unknown configurations are left as they are.
class ValidityBias {
 public:
  static constexpr double kInvalidScore = -1e6;
  static constexpr double kValidBonus = 1.0;

  // The latest word on a configuration wins (a measurement after the presampling's check).
  void Mark(const Config& config, bool valid) { known_[config] = valid; }
  void Clear() { known_.clear(); }
  size_t size() const { return known_.size(); }
  // scores[i] belongs to configs[i].
  void Apply(const std::vector<Config>& configs, std::vector<double>& scores) const;

 private:
  std::unordered_map<Config, bool, ConfigHasher> known_;
};

}  // namespace glimpse::model
