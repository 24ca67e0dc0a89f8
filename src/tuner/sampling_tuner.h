// The base of the strategies that draw fresh configurations at random (random, sa, ga).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "glimpse/random.h"
#include "glimpse/space.h"
#include "glimpse/tuner.h"
#include "tuner/visited.h"

namespace glimpse::tuner {

// What each of these strategies keeps per run, reset together when a run starts: its random
// stream, the configurations proposed or observed, and the sampler of the others.
class SamplingTuner : public Tuner {
 protected:
  // Seeds the stream with `seed` and forgets the previous run; `space` outlives the run.
  void StartRun(const ConfigSpace* space, uint64_t seed) {
    rng_.seed(seed);
    visited_.Clear();
    sampler_.Reset(space);
  }

  // Appends fresh configurations to `out`, each marked visited, until it holds `n` or the sampler
  // finds none (exhausted, exactly so for enumerable spaces).
  void AppendFresh(size_t n, std::vector<Config>& out) {
    while (out.size() < n) {
      std::optional<Config> config = sampler_.Next(rng_, visited_);
      if (!config) break;
      visited_.Insert(*config);
      out.push_back(std::move(*config));
    }
  }

  Rng rng_;
  VisitedSet visited_;
  FreshSampler sampler_;
};

}  // namespace glimpse::tuner
