// ConfigEncoder (model/config_encoding.h): a table of every knob value's encoded columns, made
// once per space.
#include "model/config_encoding.h"

#include <algorithm>
#include <cmath>

namespace glimpse::model {

ConfigEncoder::ConfigEncoder(const ConfigSpace& space) {
  for (const Knob& knob : space.knobs()) {
    std::vector<std::vector<double>> values(knob.size());
    if (knob.kind() == KnobKind::kCategorical) {
      for (size_t v = 0; v < knob.size(); ++v) {
        values[v].assign(knob.size(), -1.0);
        values[v][v] = 1.0;
      }
    } else {
      const size_t columns = static_cast<size_t>(knob.FeatureWidth());
      std::vector<std::vector<double>> raw(knob.size(), std::vector<double>(columns));
      for (size_t v = 0; v < knob.size(); ++v) knob.WriteFeatures(v, raw[v].data());
      for (size_t v = 0; v < knob.size(); ++v) values[v].resize(columns);
      for (size_t c = 0; c < columns; ++c) {
        bool positive = knob.kind() != KnobKind::kPermutation;
        for (size_t v = 0; v < knob.size(); ++v) positive = positive && raw[v][c] > 0.0;
        double low = INFINITY, high = -INFINITY;
        for (size_t v = 0; v < knob.size(); ++v) {
          if (positive) raw[v][c] = std::log2(raw[v][c]);
          low = std::min(low, raw[v][c]);
          high = std::max(high, raw[v][c]);
        }
        for (size_t v = 0; v < knob.size(); ++v) {
          values[v][c] = high > low ? 2.0 * (raw[v][c] - low) / (high - low) - 1.0 : 0.0;
        }
      }
    }
    width_ += values.empty() ? 0 : values[0].size();
    table_.push_back(std::move(values));
  }
}

void ConfigEncoder::Append(const Config& config, std::vector<double>& out) const {
  for (size_t k = 0; k < table_.size(); ++k) {
    const std::vector<double>& columns = table_[k][config.indices[k]];
    out.insert(out.end(), columns.begin(), columns.end());
  }
}

std::vector<double> ConfigEncoder::Encode(const std::vector<Config>& configs) const {
  std::vector<double> out;
  out.reserve(configs.size() * width_);
  for (const Config& config : configs) Append(config, out);
  return out;
}

}  // namespace glimpse::model
