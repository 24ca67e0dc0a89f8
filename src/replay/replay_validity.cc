// ReplayValidityChecker (glimpse/validity.h): a recorded space's status as a validity check.
#include <algorithm>
#include <utility>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/replay.h"
#include "glimpse/validity.h"

namespace glimpse {

namespace {

// The median compile time over every entry, as the ReplayRunner charges a configuration the file
// lacks (kept equal to it so that a check never costs more than the measurement it stands for).
double MedianCompileSeconds(const RecordedSpace& recorded) {
  std::vector<double> times;
  times.reserve(recorded.entries.size());
  for (const auto& [index, entry] : recorded.entries) times.push_back(entry.compile_time_s);
  if (times.empty()) return 0.0;
  const size_t middle = times.size() / 2;
  std::nth_element(times.begin(), times.begin() + middle, times.end());
  if (times.size() % 2 == 1) return times[middle];
  const double lower = *std::max_element(times.begin(), times.begin() + middle);
  return 0.5 * (lower + times[middle]);
}

}  // namespace

ReplayValidityChecker::ReplayValidityChecker(std::shared_ptr<const RecordedSpace> recorded)
    : recorded_(std::move(recorded)) {
  if (!recorded_) throw Error("ReplayValidityChecker needs a recorded space");
  missing_cost_s_ = MedianCompileSeconds(*recorded_);
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
