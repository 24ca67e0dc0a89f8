// Configurations as the numeric inputs of a Gaussian-process surrogate (the DGP tuner's): every
// column scaled into [−1, 1] over the values its knob can take, so that one lengthscale suits all.
//   - ordered and split knobs: each feature (Knob::WriteFeatures: the value, or a split's
//     factors); log₂ when every value of the column is positive (tile sizes, thread counts are
//     powers of two), then min–max scaled; a constant column is 0;
//   - categorical knobs: one-hot (a category's index carries no order), as 1 / −1;
//   - permutations: each position's loop index, min–max scaled.
#pragma once

#include <cstddef>
#include <vector>

#include "glimpse/space.h"

namespace glimpse::model {

class ConfigEncoder {
 public:
  ConfigEncoder() = default;
  // `space` outlives the encoder.
  explicit ConfigEncoder(const ConfigSpace& space);

  size_t width() const { return width_; }
  // Appends the encoding of `config` (width() values) to `out`.
  void Append(const Config& config, std::vector<double>& out) const;
  // Rows of every configuration, one after another.
  std::vector<double> Encode(const std::vector<Config>& configs) const;

 private:
  // Per knob, per value index: the value's encoded columns.
  std::vector<std::vector<std::vector<double>>> table_;
  size_t width_ = 0;
};

}  // namespace glimpse::model
