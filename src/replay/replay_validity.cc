// ReplayValidityChecker (glimpse/validity.h): a recorded space's status as a validity check.
#include <algorithm>
#include <utility>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/replay.h"
#include "glimpse/validity.h"

namespace glimpse {

ReplayValidityChecker::ReplayValidityChecker(std::shared_ptr<const RecordedSpace> recorded)
    : recorded_(std::move(recorded)) {
  if (!recorded_) throw Error("ReplayValidityChecker needs a recorded space");
  missing_cost_s_ = recorded_->MedianCompileTime();
}

std::vector<ValidityResult> ReplayValidityChecker::Check(const std::vector<Config>& configs) {
  const ConfigSpace& space = recorded_->space;
  std::vector<ValidityResult> results(configs.size());
  for (size_t i = 0; i < configs.size(); ++i) {
    const Config& config = configs[i];
    ValidityResult& result = results[i];
    if (!space.InRange(config)) {
      throw Error("ReplayValidityChecker: configuration " + std::to_string(i) + " with " +
                  std::to_string(config.indices.size()) +
                  " knob indices is not a point of the recorded space of " +
                  recorded_->source_path);
    }
    if (!space.IsValid(config)) {
      result.status = MeasureStatus::kInstantiation;  // nothing to compile: free
      continue;
    }
    ++checks_;
    auto found = recorded_->entries.find(space.ToDenseIndex(config));
    if (found == recorded_->entries.end()) {
      result.status = MeasureStatus::kUnknown;
      result.cost_s = missing_cost_s_;
    } else {
      result.status = found->second.status;
      result.valid = found->second.status == MeasureStatus::kOk;
      result.cost_s = found->second.compile_time_s;
    }
    charged_s_ += result.cost_s;
  }
  return results;
}

}  // namespace glimpse
