// glimpse/random.h — the one random engine every strategy and sampler uses.
//
// Reproducibility contract: the same seed, inputs and build give the same trajectory. Anything
// random takes an Rng& explicitly; there is no hidden global generator.
#pragma once

#include <cstdint>
#include <random>

namespace glimpse {

using Rng = std::mt19937_64;

// Uniform integer in [0, n). n must be > 0. Implemented without std::uniform_int_distribution so
// that sequences do not depend on the standard library's implementation.
inline uint64_t UniformIndex(Rng& rng, uint64_t n) {
  // Lemire's nearly-divisionless method with rejection: unbiased.
  uint64_t x = rng();
  __uint128_t m = static_cast<__uint128_t>(x) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      x = rng();
      m = static_cast<__uint128_t>(x) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

// Uniform double in [0, 1), 53 random bits.
inline double UniformUnit(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace glimpse
