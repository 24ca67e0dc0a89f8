// Drawing and moving in a ConfigSpace: SampleValid, SampleRaw, Neighbours and RandomWalk.
//
// Sampling draws knobs in the plan's assignment order and restarts from scratch at the first
// violated restriction (exactly uniform: a complete draw is uniform over the raw space and is
// accepted iff it is valid).
//
// Small spaces. SampleValid on a space of at most 2^22 raw configurations (see
// space_internal::EnumerationThreshold) enumerates the valid dense indices once, lazily and
// thread-safely, and draws uniformly from that list; max_attempts does not apply there (nullopt
// means the space has no valid configuration). Larger spaces use the rejection sampler.
#include <atomic>

#include "space/config_space_impl.h"
#include "space/space_internal.h"

namespace glimpse {

namespace space_internal {
namespace {
std::atomic<uint64_t> g_enumeration_threshold{uint64_t{1} << 22};
}  // namespace
uint64_t EnumerationThreshold() { return g_enumeration_threshold.load(std::memory_order_relaxed); }
void SetEnumerationThreshold(uint64_t raw_size) {
  g_enumeration_threshold.store(raw_size, std::memory_order_relaxed);
}
}  // namespace space_internal

using space_internal::SlotBuffer;

std::optional<Config> ConfigSpace::SampleValid(Rng& rng, uint64_t max_attempts) const {
  const Impl& s = *impl_;
  if (!s.ConstantsPass()) return std::nullopt;
  if (!s.raw_saturated && s.raw_size <= space_internal::EnumerationThreshold()) {
    const std::vector<uint64_t>& valid = s.ValidCache();
    if (valid.empty()) return std::nullopt;
    return s.ConfigOf(valid[UniformIndex(rng, valid.size())]);
  }
  SlotBuffer buffer(s.total_slots);
  Scalar* slots = buffer.Data();
  Config config;
  config.indices.resize(s.knobs.size());
  const size_t levels = s.order.size();
  for (uint64_t attempt = 0; attempt < max_attempts; ++attempt) {
    bool ok = true;
    for (size_t p = 0; p < levels; ++p) {
      const size_t k = s.order[p];
      const uint32_t v = static_cast<uint32_t>(UniformIndex(rng, s.knobs[k].size()));
      config.indices[k] = v;
      if (p < s.restricted_levels) {
        if (s.needs_slots[k]) s.WriteKnob(k, v, slots);
        if (!s.ChecksPass(s.checks[p], config.indices.data(), slots)) {
          ok = false;
          break;
        }
      }
    }
    if (ok) return config;
  }
  return std::nullopt;
}

Config ConfigSpace::SampleRaw(Rng& rng) const {
  Config config;
  config.indices.resize(impl_->knobs.size());
  for (size_t k = 0; k < impl_->knobs.size(); ++k) {
    config.indices[k] = static_cast<uint32_t>(UniformIndex(rng, impl_->knobs[k].size()));
  }
  return config;
}

std::vector<Config> ConfigSpace::Neighbours(const Config& config, bool valid_only) const {
  const Impl& s = *impl_;
  std::vector<Config> result;
  if (!s.InRange(config)) return result;
  SlotBuffer buffer(s.total_slots);
  Config candidate = config;
  for (size_t k = 0; k < s.knobs.size(); ++k) {
    for (uint32_t v : s.knobs[k].NeighbourIndices(config.indices[k])) {
      candidate.indices[k] = v;
      if (!valid_only || s.ValidInRange(candidate, buffer.Data())) result.push_back(candidate);
    }
    candidate.indices[k] = config.indices[k];
  }
  return result;
}

Config ConfigSpace::RandomWalk(const Config& start, int steps, Rng& rng) const {
  Config current = start;
  for (int step = 0; step < steps; ++step) {
    std::vector<Config> next = Neighbours(current, true);
    if (next.empty()) break;
    current = std::move(next[UniformIndex(rng, next.size())]);
  }
  return current;
}

}  // namespace glimpse
