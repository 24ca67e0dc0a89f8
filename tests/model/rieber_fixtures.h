// A synthetic space whose valid configurations form a few compact clusters in index space (as
// Rieber et al. found on VTA, Sec. III-A), and a validity checker for it.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "glimpse/space.h"
#include "glimpse/validity.h"
#include "model/rieber_init.h"
#include "model_fixtures.h"

namespace glimpse::model_testing {

// Three ordered knobs of 20 values (8000 configurations, no restrictions).
inline ConfigSpace ClusterSpace() {
  ConfigSpace space;
  for (const char* name : {"x", "y", "z"}) space.AddKnob(Knob::Ordered(name, Range(20)));
  return space;
}

// Valid within Manhattan distance 3 of one of three centres: 3 · 63 = 189 of 8000 (2.4 %).
inline bool InCluster(const Config& config) {
  static const std::vector<Config> kCentres = {{{4, 4, 4}}, {{15, 6, 12}}, {{8, 16, 17}}};
  for (const Config& centre : kCentres) {
    if (model::ManhattanDistance(config, centre) <= 3) return true;
  }
  return false;
}

// Validity by a predicate; each check costs `cost_s`. Counts what it was asked.
class PredicateChecker : public ValidityChecker {
 public:
  explicit PredicateChecker(std::function<bool(const Config&)> valid, double cost_s = 0.5)
      : valid_(std::move(valid)), cost_s_(cost_s) {}
  std::vector<ValidityResult> Check(const std::vector<Config>& configs) override {
    ++calls;
    std::vector<ValidityResult> results;
    for (const Config& config : configs) {
      ValidityResult result;
      result.valid = valid_(config);
      result.status = result.valid ? MeasureStatus::kOk : MeasureStatus::kCompileDevice;
      result.cost_s = cost_s_;
      results.push_back(result);
      checked.push_back(config);
    }
    return results;
  }
  int calls = 0;
  std::vector<Config> checked;

 private:
  std::function<bool(const Config&)> valid_;
  double cost_s_;
};

}  // namespace glimpse::model_testing
