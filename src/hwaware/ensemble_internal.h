// Shared by the validity ensemble's training and its voting: what number a knob value is to a
// predictor.
#pragma once

#include <optional>
#include <vector>

#include "glimpse/space.h"
#include "glimpse/validity_ensemble.h"

namespace glimpse::hwaware {

// The scale a single-knob predictor uses: kIndex for knobs with a non-numeric value, kLog2 when
// every value is > 0, kLinear otherwise; nullopt for knobs that get no predictor (one value,
// split, permutation).
std::optional<FeatureScale> ScaleOfKnob(const Knob& knob);

// Per value index: the knob's contribution to a feature of `scale` (the value, its log2, or the
// index). A product feature of log2 scale sums its factors' contributions; of linear scale it
// multiplies them.
std::vector<double> KnobContributions(const Knob& knob, FeatureScale scale);

inline double CombineFactors(FeatureScale scale, double accumulated, double factor) {
  return scale == FeatureScale::kLog2 ? accumulated + factor : accumulated * factor;
}
inline double FactorIdentity(FeatureScale scale) {
  return scale == FeatureScale::kLog2 ? 0.0 : 1.0;
}

}  // namespace glimpse::hwaware
