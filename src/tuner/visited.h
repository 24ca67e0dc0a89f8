// Bookkeeping shared by the search strategies: which configurations a run has already proposed or
// observed, and uniform sampling of valid configurations outside that set.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_set>
#include <vector>

#include "glimpse/random.h"
#include "glimpse/space.h"

namespace glimpse::tuner {

// Configurations proposed or observed in this run; strategies never propose one of them again.
class VisitedSet {
 public:
  bool Contains(const Config& config) const { return set_.count(config) != 0; }
  // True when `config` was not in the set before.
  bool Insert(const Config& config) { return set_.insert(config).second; }
  size_t size() const { return set_.size(); }
  void Clear() { set_.clear(); }

 private:
  std::unordered_set<Config, ConfigHasher> set_;
};

// Uniform sampling of valid, unvisited configurations without replacement.
//
// Spaces with at most kEnumerableRawSize raw points are enumerated once (ConfigSpace::
// ValidIndices) and shuffled, so exhaustion is exact. Bigger spaces use rejection sampling
// (ConfigSpace::SampleValid) and report exhaustion after kMaxConsecutiveDuplicates draws in a row
// that were all visited already.
class FreshSampler {
 public:
  static constexpr uint64_t kEnumerableRawSize = uint64_t{1} << 22;
  static constexpr int kMaxConsecutiveDuplicates = 2000;

  // `space` outlives the sampler. The enumeration is deferred to the first Next().
  void Reset(const ConfigSpace* space);

  // A valid configuration not in `visited`, or nullopt when none is left (or, for big spaces,
  // none was found). The caller inserts the result into `visited` if it proposes it.
  std::optional<Config> Next(Rng& rng, const VisitedSet& visited);

  // Whether the space is handled by enumeration.
  bool enumerable() const { return enumerable_; }

 private:
  const ConfigSpace* space_ = nullptr;
  bool enumerable_ = false;
  bool shuffled_ = false;
  std::vector<uint64_t> order_;  // shuffled valid dense indices (enumerable spaces)
  size_t cursor_ = 0;            // next position in order_
};

}  // namespace glimpse::tuner
