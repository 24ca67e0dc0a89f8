// DgpTunerOptions (glimpse/dgp_tuner.h) from the command line's JSON and their validation.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/dgp_tuner.h"
#include "glimpse/error.h"
#include "glimpse/strategy_options.h"

namespace glimpse {

namespace {

constexpr const char* kTuner = "dgp";

struct IntField {
  const char* key;
  int DgpTunerOptions::*field;
  int minimum;
};
struct NumberField {
  const char* key;
  double DgpTunerOptions::*field;
  double minimum, maximum;
};

constexpr IntField kIntFields[] = {
    {"hidden_width", &DgpTunerOptions::hidden_width, 1},
    {"hidden_layers", &DgpTunerOptions::hidden_layers, 0},
    {"feature_width", &DgpTunerOptions::feature_width, 1},
    {"min_history_records", &DgpTunerOptions::min_history_records, 1},
    {"history_samples", &DgpTunerOptions::history_samples, 1},
    {"pretrain_steps", &DgpTunerOptions::pretrain_steps, 0},
    {"pretrain_batch", &DgpTunerOptions::pretrain_batch, 2},
    {"tuning_set_size", &DgpTunerOptions::tuning_set_size, 1},
    {"adapt_every", &DgpTunerOptions::adapt_every, 1},
    {"adapt_steps", &DgpTunerOptions::adapt_steps, 0},
    {"adapt_max_points", &DgpTunerOptions::adapt_max_points, 2},
    {"pool_size", &DgpTunerOptions::pool_size, 1},
    {"local_top", &DgpTunerOptions::local_top, 0},
};

constexpr NumberField kNumberFields[] = {
    {"learning_rate", &DgpTunerOptions::learning_rate, 1e-9, 10.0},
    {"tuning_random_fraction", &DgpTunerOptions::tuning_random_fraction, 0.0, 1.0},
    {"prior_precision", &DgpTunerOptions::prior_precision, 0.0, 1e9},
    {"exploration", &DgpTunerOptions::exploration, 0.0, 1e3},
};

}  // namespace

DgpTunerOptions DgpTunerOptions::FromJson(const Json& json) {
  std::vector<std::string> keys;
  for (const IntField& f : kIntFields) keys.push_back(f.key);
  for (const NumberField& f : kNumberFields) keys.push_back(f.key);
  std::sort(keys.begin(), keys.end());
  tuner::CheckOptionKeys(json, kTuner, keys);
  DgpTunerOptions options;
  for (const IntField& f : kIntFields) {
    if (std::optional<int64_t> value = tuner::IntOption(json, kTuner, f.key)) {
      if (*value < INT32_MIN || *value > INT32_MAX) {
        throw Error(std::string("tuner 'dgp': option '") + f.key + "' is out of range (" +
                    std::to_string(*value) + ")");
      }
      options.*f.field = static_cast<int>(*value);
    }
  }
  for (const NumberField& f : kNumberFields) {
    if (std::optional<double> value = tuner::NumberOption(json, kTuner, f.key)) {
      options.*f.field = *value;
    }
  }
  options.Validate();
  return options;
}

void DgpTunerOptions::Validate() const {
  for (const IntField& f : kIntFields) {
    if (this->*f.field < f.minimum) {
      throw Error(std::string("tuner 'dgp': option '") + f.key + "' must be ≥ " +
                  std::to_string(f.minimum) + " (got " + std::to_string(this->*f.field) + ")");
    }
  }
  for (const NumberField& f : kNumberFields) {
    const double value = this->*f.field;
    if (!std::isfinite(value) || value < f.minimum || value > f.maximum) {
      throw Error(std::string("tuner 'dgp': option '") + f.key + "' must be in [" +
                  std::to_string(f.minimum) + ", " + std::to_string(f.maximum) + "] (got " +
                  std::to_string(value) + ")");
    }
  }
}

}  // namespace glimpse
