// Internals of the space area shared between its sources, its tests and its benchmark.
#pragma once

#include <cstdint>
#include <string>

#include "glimpse/space.h"

namespace glimpse::space_internal {

// FNV-1a, 64-bit: stable across processes and machines (std::hash is not).
inline uint64_t Fnv1a(const std::string& text, uint64_t hash = 0xcbf29ce484222325ULL) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// Text of a value for hashing: integral floats print as integers (16.0 → "16") so that a space
// listing 16 and one listing 16.0 hash the same configuration alike; strings are JSON-quoted.
std::string CanonicalValueText(const KnobValue& value);

// Python-style shortest round-trip text of a double ("0.5", "16.0", "1e+20", "inf").
std::string FormatDouble(double value);

// ConfigSpace::SampleValid enumerates the valid dense indices once (lazily) and samples from that
// list when RawSize() <= this threshold; above it, it samples by rejection. Process-wide; the
// default is 2^22. Tests and benchmarks set it to 0 to exercise the rejection sampler.
uint64_t EnumerationThreshold();
void SetEnumerationThreshold(uint64_t raw_size);

}  // namespace glimpse::space_internal
