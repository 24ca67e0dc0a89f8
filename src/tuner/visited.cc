#include "tuner/visited.h"

#include <utility>

namespace glimpse::tuner {

void FreshSampler::Reset(const ConfigSpace* space) {
  space_ = space;
  enumerable_ = space->RawSize() <= kEnumerableRawSize;
  shuffled_ = false;
  order_.clear();
  cursor_ = 0;
}

std::optional<Config> FreshSampler::Next(Rng& rng, const VisitedSet& visited) {
  if (enumerable_) {
    if (!shuffled_) {
      order_ = space_->ValidIndices();
      // Fisher–Yates with our own uniform draw, so the order does not depend on the standard
      // library.
      for (size_t i = order_.size(); i > 1; --i) {
        std::swap(order_[i - 1], order_[UniformIndex(rng, i)]);
      }
      shuffled_ = true;
    }
    while (cursor_ < order_.size()) {
      Config config = space_->FromDenseIndex(order_[cursor_++]);
      if (!visited.Contains(config)) return config;
    }
    return std::nullopt;
  }
  for (int duplicates = 0; duplicates < kMaxConsecutiveDuplicates; ++duplicates) {
    // A bounded number of rejection draws per sample: a big space whose restrictions admit almost
    // nothing would otherwise stall here for a long time.
    std::optional<Config> config = space_->SampleValid(rng, 1'000'000);
    if (!config) return std::nullopt;
    if (!visited.Contains(*config)) return config;
  }
  return std::nullopt;
}

}  // namespace glimpse::tuner
